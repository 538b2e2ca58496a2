import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockFileFor, lockGeneration, takeoverClaimFile } from '@/lib/server/db/data-dir-lock';

/**
 * The DATA_DIR lock under a real race: 20 processes try for the same
 * directory at the same instant, again and again, and exactly one gets it
 * each time, also when the lock they find was left by a dead process. (Two
 * racers both won half the time when the lock file was created empty and
 * written afterwards: a racer read the empty file as stale and deleted it.)
 */

const RACERS = 20;
const ROUNDS = 5;
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ck-lock-race-'));
const BOOT_ID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

class Racer {
  readonly child: ChildProcess;
  private buffer = '';
  private lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;

  constructor() {
    this.child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=react-server', 'tests/integration/db-lock-child.ts'],
      {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
        env: { ...process.env, LOG_LEVEL: 'silent' },
      },
    );
    this.child.stdout?.on('data', (d) => {
      this.buffer += String(d);
      for (let i = this.buffer.indexOf('\n'); i >= 0; i = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 1);
        const w = this.waiting;
        this.waiting = null;
        if (w) w(line);
        else this.lines.push(line);
      }
    });
  }

  get pid(): number {
    return this.child.pid as number;
  }

  next(timeoutMs = 60_000): Promise<string> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`racer ${this.pid} said nothing`)), timeoutMs);
      this.waiting = (line) => {
        clearTimeout(t);
        resolve(line);
      };
    });
  }

  send(line: string) {
    this.child.stdin?.write(`${line}\n`);
  }
}

let racers: Racer[] = [];

beforeAll(async () => {
  racers = Array.from({ length: RACERS }, () => new Racer());
  // 20 cold starts on a small machine take a while.
  const ready = await Promise.all(racers.map((r) => r.next(110_000)));
  expect(ready).toEqual(racers.map(() => 'ready'));
});

afterAll(() => {
  for (const r of racers) r.child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
function freshDir(): string {
  const dir = path.join(tmp, `d${n++}`, 'pglite');
  mkdirSync(path.dirname(dir), { recursive: true });
  return dir;
}

/** Every racer tries once, all at the same instant; the answers by pid. */
async function race(dir: string): Promise<{ winners: Racer[]; answers: string[] }> {
  // Far enough ahead that every racer has the line and spins before it comes.
  const at = Date.now() + 1_000;
  for (const r of racers) r.send(`try ${dir} ${at}`);
  const answers = await Promise.all(racers.map((r) => r.next()));
  return { winners: racers.filter((_, i) => answers[i] === 'won'), answers };
}

async function releaseAll() {
  for (const r of racers) r.send('release');
  expect(await Promise.all(racers.map((r) => r.next()))).toEqual(racers.map(() => 'released'));
}

/** Exactly one winner, the rest refused naming it, the file naming it, nothing left over. */
async function expectOneWinner(dir: string, result: Awaited<ReturnType<typeof race>>) {
  expect(result.winners, result.answers.join(', ')).toHaveLength(1);
  const [winner] = result.winners;
  expect(result.answers.filter((a) => a !== 'won')).toEqual(
    Array.from({ length: RACERS - 1 }, () => `locked ${winner.pid}`),
  );
  const file = lockFileFor(dir);
  expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(winner.pid);
  // No temp file or takeover claim left beside it.
  expect(readdirSync(path.dirname(dir))).toEqual([path.basename(file)]);
  await releaseAll();
  expect(existsSync(file)).toBe(false);
}

/** A pid that has surely exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid as number;
}

function deadOwner() {
  return JSON.stringify({
    pid: deadPid(),
    startedAt: Date.now() - 60_000,
    hostname: os.hostname(),
    bootId: BOOT_ID,
    startTicks: 1,
  });
}

describe(`${RACERS} processes racing for one DATA_DIR lock`, () => {
  it(`exactly one wins a free directory, in each of ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dir = freshDir();
      await expectOneWinner(dir, await race(dir));
    }
  }, 240_000);

  it('exactly one takes over a lock left by a dead process', async () => {
    for (let round = 0; round < 2; round++) {
      const dir = freshDir();
      writeFileSync(lockFileFor(dir), deadOwner());
      await expectOneWinner(dir, await race(dir));
    }
  }, 120_000);

  it('exactly one takes over a half-written lock (an old version killed mid-write)', async () => {
    const dir = freshDir();
    writeFileSync(lockFileFor(dir), '');
    await expectOneWinner(dir, await race(dir));
  }, 120_000);

  it('exactly one takes over when an earlier taker died in the middle of its takeover', async () => {
    const dir = freshDir();
    const file = lockFileFor(dir);
    writeFileSync(file, deadOwner());
    const generation = lockGeneration(file) as string;
    // The claim a crashed starter left on that stale file.
    writeFileSync(takeoverClaimFile(file, generation, 0), deadOwner());
    await expectOneWinner(dir, await race(dir));
  }, 120_000);

  it('nobody takes a lock whose owner is alive', async () => {
    const dir = freshDir();
    const owner = racers[0];
    owner.send(`try ${dir} 0`);
    expect(await owner.next()).toBe('won');
    const others = racers.slice(1);
    const at = Date.now() + 1_000;
    for (const r of others) r.send(`try ${dir} ${at}`);
    expect(await Promise.all(others.map((r) => r.next()))).toEqual(
      others.map(() => `locked ${owner.pid}`),
    );
    await releaseAll();
  }, 120_000);
});
