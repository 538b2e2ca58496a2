import { readdirSync } from 'node:fs';
import { type CliIo, type Command, EXIT } from './command';

/**
 * `agent-hooks <command> [args]`. Commands are the files in bin/commands/,
 * each exporting `command` (see command.ts); only the one asked for is loaded.
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  const available = commandNames();
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(await usage(available));
    return EXIT.ok;
  }
  if (name === undefined) {
    io.stderr.write(await usage(available));
    return EXIT.usage;
  }
  if (!available.includes(name)) {
    io.stderr.write(
      `agent-hooks: unknown command ${JSON.stringify(name)}\n\n${await usage(available)}`,
    );
    return EXIT.usage;
  }
  const command = await load(name);
  return command.run(rest, io);
}

const COMMANDS_DIR = new URL('./commands/', import.meta.url);
const COMMAND_FILE = /^([a-z][a-z0-9-]*)\.ts$/;

function commandNames(): string[] {
  return readdirSync(COMMANDS_DIR)
    .filter((file) => !file.endsWith('.test.ts'))
    .map((file) => COMMAND_FILE.exec(file)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort();
}

/**
 * A command module exports `command` (command.ts). A module that instead
 * default-exports `(argv, {out, err}) => Promise<exitCode>`, with an optional
 * `USAGE` line and `SUMMARY`, is adapted to the same shape.
 */
type CommandModule = {
  command?: Command;
  default?: (
    argv: string[],
    io: { out: (s: string) => void; err: (s: string) => void },
  ) => Promise<number>;
  USAGE?: string;
  SUMMARY?: string;
};

async function load(name: string): Promise<Command> {
  const module = (await import(new URL(`${name}.ts`, COMMANDS_DIR).href)) as CommandModule;
  if (module.command) return module.command;
  const run = module.default;
  if (typeof run !== 'function') throw new Error(`bin/commands/${name}.ts exports no command`);
  return {
    name,
    summary: module.SUMMARY ?? `see agent-hooks ${name} --help`,
    usage: (module.USAGE ?? name).replace(/^usage:\s*(agent-hooks\s+)?/i, ''),
    run: (args, io) =>
      run(args, { out: (s) => io.stdout.write(s), err: (s) => io.stderr.write(s) }),
  };
}

/** For the command list: a module that fails to load is listed, not fatal. */
async function describeCommand(name: string): Promise<Command> {
  try {
    return await load(name);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { name, summary: `(unavailable: ${reason})`, usage: name, run: async () => EXIT.usage };
  }
}

async function usage(names: string[]): Promise<string> {
  const commands = await Promise.all(names.map(describeCommand));
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  const forms = commands.map((command) => `  agent-hooks ${command.usage}`);
  return [
    'Usage: agent-hooks <command> [options]',
    '',
    'Agent Hooks 0.1 tools: context identity (§10.2) and schema validation (§4, §5, §9, §10.3).',
    '',
    'Commands:',
    ...lines,
    '',
    ...forms,
    '',
    'FILE "-" (or none) reads standard input. Exit codes: 0 ok, 1 input refused, 2 usage error.',
    '',
  ].join('\n');
}
