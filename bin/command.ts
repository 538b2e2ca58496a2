import { readFile } from 'node:fs/promises';

/** Where a command reads and writes; tests and the bin pass the process streams. */
export type CliIo = {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
};

/**
 * One subcommand, in its own file under bin/commands/ exporting `command`.
 * The CLI discovers the files, so adding one (e.g. `ctk`) touches nothing else.
 */
export type Command = {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The usage line(s) after `agent-hooks `. */
  readonly usage: string;
  /** Resolves to the exit code: 0 success, 1 refused input, 2 usage error. */
  run(args: string[], io: CliIo): Promise<number>;
};

export const EXIT = Object.freeze({ ok: 0, refused: 1, usage: 2 });

/** A failure the CLI reports as `{"error":{code,message}}` on stderr. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function writeError(io: CliIo, code: string, message: string): void {
  io.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
}

/**
 * Reads FILE, or standard input for `-`, as strict UTF-8: an invalid byte
 * sequence is refused rather than silently replaced with U+FFFD (§4.4).
 */
export async function readInput(source: string, io: CliIo): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = source === '-' ? await readAll(io.stdin) : await readFile(source);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'read failed';
    throw new CliError(
      'input_unreadable',
      `cannot read ${source === '-' ? 'stdin' : source}: ${reason}`,
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CliError('host_error:context_invalid', 'input is not valid UTF-8 (§4.4)');
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
  }
  return Buffer.concat(chunks);
}

/** Splits `--flag` options from positional arguments; unknown flags are usage errors. */
export function parseArgs(
  args: string[],
  flags: readonly string[],
): { flags: Set<string>; positional: string[]; unknown: string[] } {
  const seen = new Set<string>();
  const positional: string[] = [];
  const unknown: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('--')) {
      if (flags.includes(arg)) seen.add(arg);
      else unknown.push(arg);
    } else {
      positional.push(arg);
    }
  }
  return { flags: seen, positional, unknown };
}
