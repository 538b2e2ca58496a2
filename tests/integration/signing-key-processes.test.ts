import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyIdOf, parseSigningKey } from '@/lib/server/signing/key-material';
import { closeTestDb, testDb, testDatabaseUrl } from './helpers/db';

/**
 * Issue 13: processes on one database with different SIGNING_KEYs and
 * separate DATA_DIRs never take turns being the active key. Each is a real
 * process running the server's start path (instrumentation.ts → boot.ts).
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const children: ChildProcess[] = [];
const dirs: string[] = [];

type Started = {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
  up: Promise<boolean>;
};

function start(signingKey: string, extra: Record<string, string> = {}): Started {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ck-signing-'));
  dirs.push(dataDir);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['ADMIN_EMAIL', 'ADMIN_PASSWORD', 'SIGNING_KEY_REPLACES']) delete env[k];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=react-server', 'tests/integration/start-child.ts'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...env,
        NEXT_RUNTIME: 'nodejs',
        DATABASE_URL: testDatabaseUrl(),
        DATA_DIR: dataDir,
        SIGNING_KEY: signingKey,
        REDIS_URL: 'redis://127.0.0.1:6391',
        RUN_WORKER: 'false',
        LOG_LEVEL: 'info',
        ...extra,
      },
    },
  );
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const up = new Promise<boolean>((resolve) => {
    const t = setInterval(() => {
      if (out.includes('CHILD_UP')) resolve(true);
      else if (child.exitCode !== null || child.signalCode !== null) resolve(false);
      else return;
      clearInterval(t);
    }, 100);
  });
  return { child, out: () => out, exited, up };
}

const pem = () =>
  generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

async function activeKid(): Promise<string | undefined> {
  const prisma = await testDb();
  return (await prisma.signingKey.findFirst({ where: { retiredAt: null } }))?.kid;
}

beforeAll(async () => {
  await (await testDb()).signingKey.deleteMany();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await (await testDb()).signingKey.deleteMany();
  await closeTestDb();
});

describe('SIGNING_KEY across processes', () => {
  it('refuses a second process with another key, changes keys only when told, never reactivates a retired one', async () => {
    const k1 = pem();
    const k2 = pem();
    const kid1 = await keyIdOf(parseSigningKey(k1));
    const kid2 = await keyIdOf(parseSigningKey(k2));

    const a = start(k1);
    expect(await a.up, a.out()).toBe(true);
    expect(await activeKid()).toBe(kid1);

    const b = start(k2);
    expect(await b.up).toBe(false);
    expect(await b.exited).toBe(1);
    expect(b.out()).toContain('signing_key_conflict');
    expect(await activeKid()).toBe(kid1);

    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);

    // The operator's explicit change: the new key names the one it replaces.
    const c = start(k2, { SIGNING_KEY_REPLACES: kid1 });
    expect(await c.up, c.out()).toBe(true);
    expect(await activeKid()).toBe(kid2);

    // An instance still configured with the old key cannot start and flip it back.
    const d = start(k1);
    expect(await d.exited).toBe(1);
    expect(d.out()).toContain('signing_key_retired');
    expect(await activeKid()).toBe(kid2);

    c.child.kill('SIGTERM');
    expect(await c.exited).toBe(0);
  });
});
