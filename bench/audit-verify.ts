// `npm run bench:audit-verify [-- --json] [-- --records N]`: how fast
// `agent-hooks audit verify` checks a 1M-record export (issue 13:
// ≥ 100k records/s). Generates a synthetic export signed with a throwaway
// Ed25519 key (no database: the log is built with lib/proof, the lines with
// the server's own writers), verifies it in-process and through the CLI,
// and compares with a baseline measured in the same run over the same file:
// JSON.parse + SHA-256 of every line on one thread (the least any verifier
// must do). Also reported: the load average, and records per CPU-second of
// the in-process run (all threads), which moves far less with the load.
// `--file PATH` keeps the export (and PATH.jwks.json) and reuses it next
// time; `--verify-only` skips the baseline and the CLI run; `--workers N`
// sets the in-process run's worker threads (default: what the CLI picks).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  readFileSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { canonicalJson } from '@checkpoint/agent-hooks';
import type { JSONWebKeySet } from 'jose';
import {
  appendLeaves,
  assembleInclusion,
  assembleRoot,
  EMPTY_FRONTIER,
  subtreeKey,
  toHex,
} from '@/lib/proof';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  endLine,
  headerLine,
  leafLine,
} from '@/lib/verify/export-format';
import { TREE_HEAD_TYP } from '@/lib/verify/jws';
import { leafHashHexOfText, leafText, recordLeafObject } from '@/lib/verify/leaf-data';
import { verifyExportFile } from '@/lib/verify/export-file';
import { forEachLine } from '@/lib/verify/read-lines';
import { chainHashOf, displayedColumns } from '@/lib/verify/record-columns';
import { HOST, jwksOf, sampleRecord, sign, throwawayKey } from '@/tests/unit/fixtures/audit-export';
import { benchLogger, round } from './support';

const json = process.argv.includes('--json');
const log = benchLogger(json);
const argN = process.argv.indexOf('--records');
const N = argN > 0 ? Number(process.argv[argN + 1]) : 1_000_000;
const argFile = process.argv.indexOf('--file');
/** `--file PATH`: reuse (or create and keep) the export at PATH and its JWKS at PATH.jwks.json. */
const keepFile = argFile > 0 ? (process.argv[argFile + 1] as string) : null;
const only = process.argv.includes('--verify-only');
const argWorkers = process.argv.indexOf('--workers');
/** `--workers N`: worker threads for the in-process run (default: what the CLI picks). */
const workers = argWorkers > 0 ? Number(process.argv[argWorkers + 1]) : undefined;
const PER_SESSION = 100;
const SESSIONS = Math.ceil(N / PER_SESSION);

/** Row i of the synthetic log: sessions interleaved, 100 records each. */
function* rows() {
  const prev = new Map<number, string | null>();
  for (let i = 0; i < N; i++) {
    const s = i % SESSIONS;
    const sequence = Math.floor(i / SESSIONS);
    const sessionId = `s-${s}`;
    const record = sampleRecord(sessionId, sequence, sequence % 7 === 3 ? 'deny' : 'allow');
    const prevHash = prev.get(s) ?? null;
    const chainHash = chainHashOf(prevHash, canonicalJson(record));
    prev.set(s, chainHash);
    const leaf = recordLeafObject({
      hostId: HOST,
      sessionId,
      sequence,
      record,
      chainHash,
      prevHash,
      receivedAt: new Date(Date.UTC(2026, 11, 1) + i).toISOString(),
      agentId: null,
      ticketId: null,
    });
    yield { i, sessionId, sequence, record, chainHash, text: leafText(leaf) };
  }
}

async function generate(file: string) {
  const t0 = performance.now();
  const hashes: Uint8Array[] = new Array(N);
  const heads = new Map<
    string,
    { head_hash: string; last_sequence: number; record_count: number }
  >();
  for (const r of rows()) {
    hashes[r.i] = Buffer.from(leafHashHexOfText(r.text), 'hex');
    heads.set(r.sessionId, {
      head_hash: r.chainHash,
      last_sequence: r.sequence,
      record_count: r.sequence + 1,
    });
  }
  const lookup = new Map<string, Uint8Array>();
  for (const s of appendLeaves(EMPTY_FRONTIER, hashes).created)
    lookup.set(subtreeKey(s.level, s.index), s.hash);
  hashes.length = 0;
  const key = await throwawayKey();
  const payload = {
    size: N,
    root_hash: toHex(assembleRoot(N, lookup)),
    timestamp: Date.now(),
    kid: key.kid,
  };
  const fd = openSync(file, 'w');
  writeSync(
    fd,
    headerLine({
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      kind: 'export',
      generated_at: new Date().toISOString(),
      scope: { kind: 'query', filters: {} },
      tree_head: { ...payload, jws: await sign(key, payload, TREE_HEAD_TYP) },
      consistency: [],
      jwks_url: 'https://checkpoint.example/.well-known/jwks.json',
      sessions: [...heads].map(([session_id, head]) => ({ host_id: HOST, session_id, head })),
    }),
  );
  let batch = '';
  for (const r of rows()) {
    const proof = assembleInclusion(r.i, N, lookup).map(toHex);
    const meta = {
      kind: 'record' as const,
      id: String(r.i + 1),
      host: 'web-1',
      leaf_index: r.i,
      proof,
      columns: displayedColumns(r.record, r.sessionId, r.sequence) as Record<string, unknown>,
    };
    batch += leafLine(meta, r.text);
    if (batch.length > 4_000_000) {
      writeSync(fd, batch);
      batch = '';
    }
  }
  writeSync(fd, batch + endLine({ kind: 'end', records: N, decisions: 0 }));
  closeSync(fd);
  return { key, seconds: (performance.now() - t0) / 1000 };
}

async function baseline(file: string): Promise<number> {
  const t0 = performance.now();
  let lines = 0;
  await forEachLine(file, (text) => {
    JSON.parse(text);
    createHash('sha256').update(text).digest('hex');
    lines++;
  });
  return lines / ((performance.now() - t0) / 1000);
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-audit-verify-'));
  try {
    const file = keepFile ?? path.join(dir, 'export.jsonl');
    const jwksFile = `${file}.jwks.json`;
    let jwks: { keys: unknown[] };
    if (keepFile && existsSync(file) && existsSync(jwksFile)) {
      jwks = JSON.parse(readFileSync(jwksFile, 'utf8'));
      log(`reusing ${file}`);
    } else {
      log(`generating a ${N}-record export…`);
      const gen = await generate(file);
      jwks = jwksOf(gen.key);
      writeFileSync(jwksFile, JSON.stringify(jwks));
      log(`generated in ${gen.seconds.toFixed(1)} s`);
    }
    const bytes = statSync(file).size;
    const base = only ? Number.NaN : await baseline(file);
    log('verifying in-process…');
    const cpu0 = process.cpuUsage();
    let t0 = performance.now();
    const result = await verifyExportFile(file, { jwks: jwks as JSONWebKeySet, workers });
    const records = result.records;
    const inProcess = records / ((performance.now() - t0) / 1000);
    const cpu = process.cpuUsage(cpu0);
    // All threads' CPU time: what the verification costs whatever the machine's load.
    const perCpuSecond = records / ((cpu.user + cpu.system) / 1e6);
    if (!result.ok)
      throw new Error(`the export did not verify: ${JSON.stringify(result.findings.slice(0, 3))}`);
    let cli = Number.NaN;
    if (!only) {
      log('verifying through the CLI…');
      t0 = performance.now();
      execFileSync(
        process.execPath,
        ['bin/agent-hooks.mjs', 'audit', 'verify', file, '--jwks', jwksFile, '--json'],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      cli = records / ((performance.now() - t0) / 1000);
    }
    const out = {
      records,
      export_mb: round(bytes / 1e6),
      load_average_1m: round(loadavg()[0] ?? 0),
      cores: availableParallelism(),
      baseline_records_per_s: Math.round(base),
      workers: workers ?? 'default',
      in_process_records_per_s: Math.round(inProcess),
      records_per_cpu_s: Math.round(perCpuSecond),
      cli_records_per_s: Math.round(cli),
      ratio_to_baseline: Math.round((inProcess / base) * 100) / 100,
      cli_ratio_to_baseline: Math.round((cli / base) * 100) / 100,
      target_records_per_s: 100_000,
    };
    if (json) console.log(JSON.stringify(out));
    else console.table(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
