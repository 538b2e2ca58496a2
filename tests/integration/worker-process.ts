import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { testRedis } from './helpers/redis';

/**
 * `scripts/worker.ts` as a real, separate process (what docker-compose's
 * worker service runs), with a DATA_DIR of its own, on the run's database.
 * The worker's queue has the fixed app prefix (`checkpoint`), so it gets a
 * Redis database of its own: one that is empty, claimed with SET NX so two
 * runs never share it, and emptied of our keys at the end.
 */

const CLAIM_KEY = 'ck_it_worker_claim';
/** 0 is the default app's, 14 the e2e app's (playwright.config.ts). */
const CANDIDATE_DBS = [13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1];

export interface RedisDb {
  url: string;
  release(): Promise<void>;
}

export async function claimRedisDb(): Promise<RedisDb> {
  const base = testRedis().url.replace(/\/\d*$/, '');
  const token = testRedis().prefix;
  for (const n of CANDIDATE_DBS) {
    const url = `${base}/${n}`;
    const client = new Redis(url, { maxRetriesPerRequest: 1 });
    client.on('error', () => {});
    try {
      if ((await client.dbsize()) !== 0) continue;
      if ((await client.set(CLAIM_KEY, token, 'EX', 1800, 'NX')) !== 'OK') continue;
      return {
        url,
        release: async () => {
          const c = new Redis(url, { maxRetriesPerRequest: 1 });
          c.on('error', () => {});
          try {
            await deleteMatching(c, 'checkpoint:*');
            if ((await c.get(CLAIM_KEY)) === token) await c.del(CLAIM_KEY);
          } finally {
            c.disconnect();
          }
        },
      };
    } finally {
      client.disconnect();
    }
  }
  throw new Error('no empty Redis database to give the worker process');
}

async function deleteMatching(c: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await c.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await c.del(...keys);
  } while (cursor !== '0');
}

export class WorkerProcess {
  readonly dataDir = mkdtempSync(path.join(tmpdir(), 'ck-worker-'));
  output = '';
  private child?: ChildProcess;
  private exited?: Promise<number | null>;

  constructor(private readonly env: Record<string, string>) {}

  /** Starts the worker; resolves once it logged "worker started", rejects if it exits first. */
  start(): Promise<void> {
    const child = spawn(
      process.execPath,
      ['--conditions=react-server', '--import', 'tsx', 'scripts/worker.ts'],
      {
        env: { ...process.env, DATA_DIR: this.dataDir, LOG_LEVEL: 'info', ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
    const collect = (d: Buffer) => {
      this.output += String(d);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    return new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        if (this.output.includes('"worker started"')) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
      void this.exited?.then((code) => {
        clearInterval(timer);
        reject(new Error(`worker exited with ${code} before starting:\n${this.output}`));
      });
    });
  }

  /** Runs the worker expecting it to refuse to start; resolves to its exit code. */
  async runToExit(timeoutMs = 60_000): Promise<number | null> {
    await this.start().catch(() => {});
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs));
    const code = await Promise.race([this.exited, timeout]);
    if (code === 'timeout') throw new Error(`worker still running:\n${this.output}`);
    return code ?? null;
  }

  /** SIGTERM (SIGKILL after 10 s), then removes its DATA_DIR. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(killer);
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
