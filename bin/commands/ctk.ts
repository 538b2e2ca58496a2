/**
 * `agent-hooks ctk [--vectors DIR] [--json] [--json-file FILE] [--report FILE.md]`
 * Runs the Conformance Test Kit (§13) against the reference harness. Exit 0
 * iff no vector failed; 1 when one did; 2 when the kit refused to run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CtkError, DEFAULT_VECTORS_DIR, readVectorDir } from '@/conformance/load';
import { referenceHarness } from '@/conformance/reference-harness';
import { formatLine, renderReport, toJson } from '@/conformance/report';
import { readGoldenFile } from '@/conformance/golden-format';
import { DEFAULT_GOLDEN_FILE, runGoldenFixtures } from '@/conformance/golden-runner';
import { runVectors, summarize, type VectorResult } from '@/conformance/runner';
import type { Harness } from '@/conformance/harness';
import type { Command } from '../command';

export interface CtkOptions {
  vectors: string;
  /** Golden identity fixtures to run as well; by default only with the project's own vectors. */
  golden: string | null;
  json: boolean;
  jsonFile: string | null;
  report: string | null;
}

export const USAGE =
  'usage: agent-hooks ctk [--vectors DIR] [--golden FILE | --no-golden] [--json] [--json-file FILE] [--report FILE.md]';

export function parseCtkArgs(argv: string[]): CtkOptions {
  const opts: CtkOptions = {
    vectors: DEFAULT_VECTORS_DIR,
    golden: null,
    json: false,
    jsonFile: null,
    report: null,
  };
  let golden: string | null | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--'))
        throw new CtkError('ctk_usage', `${arg} needs a value\n${USAGE}`);
      return v;
    };
    if (arg === '--json') opts.json = true;
    else if (arg === '--vectors') opts.vectors = path.resolve(value());
    else if (arg === '--golden') golden = path.resolve(value());
    else if (arg === '--no-golden') golden = null;
    else if (arg === '--json-file') opts.jsonFile = path.resolve(value());
    else if (arg === '--report') opts.report = path.resolve(value());
    else if (arg === '--help' || arg === '-h') throw new CtkError('ctk_usage', USAGE);
    else throw new CtkError('ctk_usage', `unknown argument ${arg}\n${USAGE}`);
  }
  // A foreign vector set runs alone unless golden fixtures are asked for.
  if (golden !== undefined) opts.golden = golden;
  else if (opts.vectors === DEFAULT_VECTORS_DIR) opts.golden = DEFAULT_GOLDEN_FILE;
  return opts;
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** The command; `harness` is a parameter so that tests (and other hosts) can swap it. */
export async function ctk(
  argv: string[],
  io: { out: (s: string) => void; err: (s: string) => void } = {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
  },
  harness: Harness = referenceHarness,
): Promise<number> {
  try {
    const opts = parseCtkArgs(argv);
    const human = !opts.json;
    const print = (r: VectorResult) => {
      if (human) io.out(`${formatLine(r)}\n`);
    };
    // Both inputs are read and checked before anything runs: a bad file fails alone.
    const fixtures = opts.golden ? readGoldenFile(opts.golden) : [];
    const dir = readVectorDir(opts.vectors);
    // JSON files beside the vectors that are not vectors (a manifest, fixtures): named, not run.
    for (const f of dir.ignored) io.err(`ignored ${f.file}: ${f.why}\n`);
    const vectors = await runVectors(dir.files, harness, {}, print);
    const golden = runGoldenFixtures(fixtures, harness);
    golden.forEach(print);
    const results = [...vectors.results, ...golden];
    const run = { summary: summarize(results), results };
    const json = toJson(run);
    if (opts.json) io.out(`${json}\n`);
    if (opts.jsonFile) write(opts.jsonFile, `${json}\n`);
    if (opts.report) {
      write(
        opts.report,
        renderReport(run, harness.declaration, {
          vectorsDir: opts.vectors,
          generatedAt: new Date(),
        }),
      );
    }
    const { pass, fail, skip } = run.summary;
    if (human) {
      io.out(
        `\nctk: ${pass} pass, ${fail} fail, ${skip} skip (${vectors.results.length} vectors, ${golden.length} golden identities; harness ${harness.declaration.framework})\n`,
      );
      if (opts.report) io.out(`report: ${opts.report}\n`);
    }
    return fail > 0 ? 1 : 0;
  } catch (error) {
    // The CLI's error shape (bin/command.ts): a stable code tests and scripts match on.
    if (error instanceof CtkError) {
      io.err(`${JSON.stringify({ error: { code: error.code, message: error.message } })}\n`);
      return 2;
    }
    throw error;
  }
}

export const SUMMARY = 'run the Conformance Test Kit (§13) and write its report';

/** The CLI's command shape (bin/command.ts); the reference harness is the host under test. */
export const command: Command = {
  name: 'ctk',
  summary: SUMMARY,
  usage: USAGE.replace(/^usage:\s*agent-hooks\s+/, ''),
  run: (args, io) => ctk(args, { out: (s) => io.stdout.write(s), err: (s) => io.stderr.write(s) }),
};

export default ctk;

// Direct use: `npx tsx bin/commands/ctk.ts …`.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? '')) {
  ctk(process.argv.slice(2)).then((code) => process.exit(code));
}
