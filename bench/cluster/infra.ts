// The cluster's moving parts: a scratch PostgreSQL database, a Redis
// database index of the run's own, app instances and worker processes, and
// one cleanup list that runs on success, on failure and on Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { NEXT_BIN, ROOT } from './build';

type Cleanup = () => Promise<void> | void;
const cleanups: Cleanup[] = [];
let cleaning: Promise<void> | undefined;

/** Registers an undo step; they run last-in first-out, each at most once. */
export function onCleanup(fn: Cleanup): void {
  cleanups.push(fn);
}

export function cleanupAll(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const fn = cleanups.pop() as Cleanup;
      await Promise.resolve()
        .then(fn)
        .catch(() => {});
    }
  })();
  return cleaning;
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    console.error(`\n${sig}: cleaning up…`);
    void cleanupAll().finally(() => process.exit(130));
  });
}

const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Creates `ck_bench_cluster_<time>`, dropped (WITH FORCE) at cleanup. */
export async function scratchDatabase(): Promise<{ name: string; url: string }> {
  const name = `ck_bench_cluster_${Date.now()}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  await admin(`CREATE DATABASE "${name}"`);
  onCleanup(() => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  return { name, url: url.toString() };
}

const CLAIM_KEY = 'ck_bench_cluster_claim';
/**
 * The app's queue prefix is fixed, so a run isolates itself in a Redis
 * database index of its own: an empty one, claimed with SET NX (the same
 * scheme as tests/integration/worker-process.ts), flushed at cleanup.
 * 0 is the default app's and 14 the e2e app's; the integration tests take
 * from 13 down, so this takes from 1 up.
 */
const CANDIDATE_DBS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];

export async function claimRedisDb(): Promise<{ url: string; index: number; token: string }> {
  const base = (process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379').replace(/\/\d*$/, '');
  const token = `bench-cluster-${process.pid}-${Date.now()}`;
  for (const n of CANDIDATE_DBS) {
    const url = `${base}/${n}`;
    const client = new Redis(url, { maxRetriesPerRequest: 1 });
    client.on('error', () => {});
    try {
      if ((await client.dbsize()) !== 0) continue;
      if ((await client.set(CLAIM_KEY, token, 'EX', 3600, 'NX')) !== 'OK') continue;
      onCleanup(async () => {
        const c = new Redis(url, { maxRetriesPerRequest: 1 });
        c.on('error', () => {});
        try {
          // Only while it is still ours (a FLUSHDB mid-run re-claims it).
          if ((await c.get(CLAIM_KEY)) === token) await c.flushdb();
        } finally {
          c.disconnect();
        }
      });
      return { url, index: n, token };
    } finally {
      client.disconnect();
    }
  }
  throw new Error('no empty Redis database index (1-13) to run the cluster on');
}

/** FLUSHDB on the run's Redis database, keeping the claim. */
export async function flushRedisDb(redis: { url: string; token: string }): Promise<void> {
  const c = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  c.on('error', () => {});
  try {
    await c.flushdb();
    await c.set(CLAIM_KEY, redis.token, 'EX', 3600);
  } finally {
    c.disconnect();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A directory under the run's temporary root, removed at cleanup. */
export function runDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ck-bench-cluster-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A child process of the cluster: its output goes to a log file under the run dir. */
export class ClusterProcess {
  child?: ChildProcess;
  output = '';
  private exited?: Promise<void>;

  constructor(
    readonly name: string,
    private readonly argv: string[],
    private readonly env: Record<string, string>,
    private readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    const log = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(process.execPath, this.argv, {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.output = '';
    const collect = (d: Buffer) => {
      log.write(d);
      // Enough to see a start line or the reason it stopped.
      if (this.output.length < 200_000) this.output += String(d);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((r) => child.once('exit', () => r()));
    onCleanup(() => this.kill('SIGKILL'));
  }

  get running(): boolean {
    const c = this.child;
    return Boolean(c && c.exitCode === null && c.signalCode === null);
  }

  /** Sends the signal and waits for the exit (SIGKILL after 10 s). */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const c = this.child;
    if (!c || !this.running) return;
    c.kill(signal);
    const killer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(killer);
  }

  /** Resumes once `ready()` holds; throws if the process exits first or after `timeoutMs`. */
  async waitFor(ready: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (!this.running) {
        throw new Error(`${this.name} exited before it was ready:\n${this.output.slice(-4000)}`);
      }
      if (await ready()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.output.slice(-4000)}`);
  }
}

/** `next start` on a port, from the build in `distDir`. */
export function appInstance(
  name: string,
  port: number,
  distDir: string,
  env: Record<string, string>,
  dir: string,
): ClusterProcess {
  return new ClusterProcess(
    name,
    [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'],
    {
      ...env,
      NEXT_DIST_DIR: distDir,
      NODE_ENV: 'production',
      NEXT_MANUAL_SIG_HANDLE: '1',
      PORT: String(port),
      RUN_WORKER: 'false',
      DATA_DIR: path.join(dir, `data-${name}`),
    },
    path.join(dir, `${name}.log`),
  );
}

/** What `npm run worker` runs, without npm in between (so the pid is the worker's). */
export function workerProcess(
  name: string,
  env: Record<string, string>,
  dir: string,
): ClusterProcess {
  return new ClusterProcess(
    name,
    ['--conditions=react-server', '--import', 'tsx', 'scripts/worker.ts'],
    // "worker started" is an info line: the readiness signal.
    { ...env, LOG_LEVEL: 'info', DATA_DIR: path.join(dir, `data-${name}`) },
    path.join(dir, `${name}.log`),
  );
}

/** Resident memory of a process and its descendants, MiB (VmRSS in /proc). */
export function rssMiB(pid: number | undefined): number | null {
  if (!pid) return null;
  let kib = 0;
  const visit = (p: number) => {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      kib += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      for (const task of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').split(/\s+/)) {
        if (task) visit(Number(task));
      }
    } catch {
      // gone
    }
  };
  visit(pid);
  return Math.round((kib / 1024) * 10) / 10;
}
