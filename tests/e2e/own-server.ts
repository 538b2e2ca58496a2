import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';
import pg from 'pg';
import { type Child, E2E_ADMIN, runChild } from './fixtures';

/**
 * A server of a spec's own over a PostgreSQL database of its own, for specs
 * that write to the database behind the app's back (a rogue operator's
 * UPDATE): the shared e2e server runs on the embedded database, which admits
 * no second process. It reuses the shared server's build (same
 * NEXT_DIST_DIR), so no second build.
 */

const ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/** One statement on `url` (a fresh connection each time; specs run few). */
export async function sql(url: string, query: string, args: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query, args)).rows;
  } finally {
    await client.end();
  }
}

export type OwnServer = {
  /** http://localhost:<port> */
  url: string;
  /** Its database, for the spec's own statements. */
  dbUrl: string;
  dataDir: string;
  stop(): Promise<void>;
};

/**
 * Creates database `checkpoint_e2e_<name>`, starts the app on `port` with the
 * admin of fixtures.ts, fresh shared keys, a fast transparency log and `env`
 * on top, and waits until it answers /api/health.
 */
export async function startOwnServer(
  name: string,
  port: number,
  env: Record<string, string> = {},
): Promise<OwnServer> {
  const dbName = `checkpoint_e2e_${name}`;
  const dbUrl = `postgresql://postgres@127.0.0.1:5432/${dbName}`;
  await sql(ADMIN_URL, `CREATE DATABASE "${dbName}"`);
  const dataDir = mkdtempSync(path.join(tmpdir(), `checkpoint-e2e-${name}-`));
  const url = `http://localhost:${port}`;
  const server: Child = runChild(process.execPath, ['scripts/start.mjs', '--no-build'], {
    env: {
      PORT: String(port),
      DATA_DIR: dataDir,
      TREE_HEAD_FILE: path.join(dataDir, 'tree-heads.jsonl'),
      DATABASE_URL: dbUrl,
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      // A server on PostgreSQL takes its shared keys from the environment.
      AUTH_SECRET: randomBytes(32).toString('hex'),
      APP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      LOG_APPEND_INTERVAL_MS: '200',
      TREE_HEAD_INTERVAL_MS: '500',
      ...env,
    },
  });
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`${url}/api/health`)).status;
        } catch {
          return server.output().slice(-300);
        }
      },
      { timeout: 120_000, intervals: [500] },
    )
    .toBe(200);
  return {
    url,
    dbUrl,
    dataDir,
    async stop() {
      server.kill();
      await server.done;
      await sql(ADMIN_URL, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A §10.3 InterceptionRecord of a pre_tool_call, allowed or denied by interceptor 0. */
export function interceptionRecord(
  sessionId: string,
  sequence: number,
  decision: 'allow' | 'deny',
) {
  return {
    interception_point: 'pre_tool_call',
    mode: 'enforce',
    verdict: decision === 'deny' ? { decision, reason: 'destructive_tool' } : { decision },
    input_identity: `jcs-sha256:${sessionId}-${sequence}`,
    enforced_identity: `jcs-sha256:${sessionId}-${sequence}`,
    identity_provider: 'jcs-sha256',
    session_id: sessionId,
    sequence,
    timestamp: '2026-12-02T10:00:00.000Z',
    decided_by: decision === 'deny' ? 0 : null,
    composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
    interceptors_registered: 1,
  };
}
