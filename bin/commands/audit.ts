import { readFile } from 'node:fs/promises';
import type { JSONWebKeySet } from 'jose';
import { verifyExportFile } from '@/lib/verify/export-file';
import { ExportInputError, type ExportVerification } from '@/lib/verify/export-verify';
import { isFailure } from '@/lib/verify/findings';
import { parseJwks } from '@/lib/verify/jws';
import { CliError, type Command, EXIT, writeError } from '../command';

/**
 * `agent-hooks audit verify EXPORT.jsonl --jwks JWKS.json [--tree-head
 * STH.json] [--json]`: checks an audit export or evidence bundle offline,
 * with the public keys alone (issue 13 item 4; docs/verifying.md). Exit 0
 * verified, 1 verification failed, 2 usage error or unreadable input.
 */

const USAGE = 'audit verify FILE --jwks JWKS.json [--tree-head STH.json] [--json]';

export const command: Command = {
  name: 'audit',
  summary: 'verify an audit export or evidence bundle offline against the signing keys',
  usage: USAGE,
  async run(args, io) {
    const opts = parseOptions(args, ['--jwks', '--tree-head'], ['--json']);
    if (
      opts?.positional[0] !== 'verify' ||
      opts.positional.length !== 2 ||
      !opts.values.has('--jwks')
    ) {
      io.stderr.write(`Usage: agent-hooks ${USAGE}\n`);
      return EXIT.usage;
    }
    try {
      const jwks = await readJwks(opts.values.get('--jwks') as string);
      const sthPath = opts.values.get('--tree-head');
      const olderTreeHead = sthPath === undefined ? undefined : await readTreeHead(sthPath);
      const result = await verifyExportFile(opts.positional[1] as string, { jwks, olderTreeHead });
      io.stdout.write(
        opts.flags.has('--json') ? `${JSON.stringify(result)}\n` : humanReport(result),
      );
      return result.ok ? EXIT.ok : EXIT.refused;
    } catch (error) {
      if (error instanceof CliError || error instanceof ExportInputError) {
        writeError(io, error.code, error.message);
        return EXIT.usage;
      }
      throw error;
    }
  },
};

function humanReport(r: ExportVerification): string {
  const head = r.treeHead
    ? `tree head size ${r.treeHead.size}, key ${r.treeHead.kid}, ${new Date(r.treeHead.timestamp).toISOString()}`
    : 'no readable tree head';
  const lines = r.findings.map((f) => `${isFailure(f) ? '' : '(note) '}${f.detail}`);
  const verdict = r.ok
    ? `verified: ${r.records} records and ${r.decisions} decisions against the ${head}`
    : `FAILED: ${r.findings.filter(isFailure).length} problem(s) in ${r.records} records and ${r.decisions} decisions (${head})`;
  return `${[...lines, verdict].join('\n')}\n`;
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      'input_unreadable',
      `cannot read the ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? 'read failed'}`,
    );
  }
}

export async function readJwks(path: string): Promise<JSONWebKeySet> {
  let value: unknown;
  try {
    value = JSON.parse(await readText(path, 'JWKS'));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError('jwks_invalid', `${path} is not JSON`);
  }
  const jwks = parseJwks(value);
  if (!jwks)
    throw new CliError(
      'jwks_invalid',
      `${path} is not a JWKS ({"keys": [...]}, as /.well-known/jwks.json serves)`,
    );
  return jwks;
}

/** The answer of GET /api/v1/log/tree-head (its `jws`), or a bare compact JWS. */
async function readTreeHead(path: string): Promise<string> {
  const text = (await readText(path, 'tree head')).trim();
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(text)) return text;
  try {
    const jws = JSON.parse(text)?.jws;
    if (typeof jws === 'string') return jws;
  } catch {
    // fall through
  }
  throw new CliError(
    'tree_head_invalid',
    `${path} is neither a tree head as GET /api/v1/log/tree-head answers it nor a compact JWS`,
  );
}

/** `--name value` options, boolean `--flags` and positionals; null on anything unknown. */
export function parseOptions(
  args: string[],
  valued: readonly string[],
  flags: readonly string[],
): { values: Map<string, string>; flags: Set<string>; positional: string[] } | null {
  const values = new Map<string, string>();
  const seen = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (valued.includes(arg)) {
      const value = args[++i];
      if (value === undefined) return null;
      values.set(arg, value);
    } else if (flags.includes(arg)) seen.add(arg);
    else if (arg.startsWith('--')) return null;
    else positional.push(arg);
  }
  return { values, flags: seen, positional };
}
