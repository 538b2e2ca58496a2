import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, expect, test } from '@playwright/test';
import pg from 'pg';
import { type Child, E2E_ADMIN, PORT, registerHost, runChild, signIn } from './fixtures';

/**
 * Issue 13 item 4 in the browser: the session page verifies its records
 * against the transparency log, and after an UPDATE made straight in the
 * database (what a rogue operator can do) it names the altered record and
 * the column. The shared e2e server runs on the embedded database, which no
 * second process may open, so this spec starts its own server on a
 * PostgreSQL database of its own that the test can write to.
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
const DB_NAME = `checkpoint_e2e_integrity_${run}`;
const ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const DB_URL = `postgresql://postgres@127.0.0.1:5432/${DB_NAME}`;
// PORT + 1 is the stand-in identity provider.
const OWN_PORT = PORT + 3;
const OWN_URL = `http://localhost:${OWN_PORT}`;

async function sql(url: string, query: string, args: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query, args)).rows;
  } finally {
    await client.end();
  }
}

let server: Child | null = null;
let dataDir = '';
let context: BrowserContext;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  await sql(ADMIN_URL, `CREATE DATABASE "${DB_NAME}"`);
  dataDir = mkdtempSync(path.join(tmpdir(), 'checkpoint-e2e-integrity-'));
  // The build the shared server made (same NEXT_DIST_DIR): no second build.
  server = runChild(process.execPath, ['scripts/start.mjs', '--no-build'], {
    env: {
      PORT: String(OWN_PORT),
      DATA_DIR: dataDir,
      DATABASE_URL: DB_URL,
      REDIS_URL: 'redis://127.0.0.1:6379/13',
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      // A server on PostgreSQL takes its shared keys from the environment.
      AUTH_SECRET: randomBytes(32).toString('hex'),
      APP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      LOG_APPEND_INTERVAL_MS: '200',
      TREE_HEAD_INTERVAL_MS: '500',
    },
  });
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`${OWN_URL}/api/health`)).status;
        } catch {
          return server?.output().slice(-300) ?? 0;
        }
      },
      { timeout: 120_000, intervals: [500] },
    )
    .toBe(200);
  context = await browser.newContext({ baseURL: OWN_URL });
});

test.afterAll(async () => {
  await context?.close();
  if (server) {
    server.kill();
    await server.done;
  }
  await sql(ADMIN_URL, `DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function record(sequence: number, decision: 'allow' | 'deny') {
  return {
    interception_point: 'pre_tool_call',
    mode: 'enforce',
    verdict: decision === 'deny' ? { decision, reason: 'destructive_tool' } : { decision },
    input_identity: `jcs-sha256:int-${sequence}`,
    enforced_identity: `jcs-sha256:int-${sequence}`,
    identity_provider: 'jcs-sha256',
    session_id: `integrity-${run}`,
    sequence,
    timestamp: '2026-12-02T10:00:00.000Z',
    decided_by: decision === 'deny' ? 0 : null,
    composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
    interceptors_registered: 1,
  };
}

test('the session page verifies against the signed tree head, then names an altered record', async () => {
  test.setTimeout(120_000);
  const page = await context.newPage();
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/hosts');
  await expect(page).toHaveURL(/\/hosts$/);
  const { hostId, apiKey } = await registerHost(page, `integrity-${run}`);
  const sessionId = `integrity-${run}`;
  const res = await page.request.post('/api/v1/records', {
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    data: [0, 1, 2, 3, 4].map((i) => record(i, i === 2 ? 'deny' : 'allow')),
  });
  expect(res.status()).toBeLessThan(300);

  // Appended within LOG_APPEND_INTERVAL_MS; the page signs a head on demand.
  const sessionUrl = `/audit/sessions/${encodeURIComponent(sessionId)}?host=${hostId}`;
  const status = page.getByTestId('chain-status');
  await expect(async () => {
    await page.goto(sessionUrl);
    await expect(status).toHaveAttribute('data-state', 'ok', { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(status).toContainText(/^Verified against signed tree head #\d+ /);
  await expect(status).toContainText('5 records, all in the log');
  await expect(page.getByRole('link', { name: 'Download evidence' })).toHaveAttribute(
    'href',
    `/api/v1/audit/sessions/${encodeURIComponent(sessionId)}/evidence?host_id=${hostId}`,
  );

  // A rogue operator turns the deny into an allow, straight in the database.
  const [row] = await sql(
    DB_URL,
    `UPDATE "InterceptionRecord" SET decision = 'allow', reason = NULL
     WHERE "sessionId" = $1 AND sequence = 2 RETURNING id::text AS id`,
    [sessionId],
  );
  const id = row?.id as string;
  await page.reload();
  await expect(status).toHaveAttribute('data-state', 'failed');
  await expect(status).toHaveAttribute('role', 'alert');
  await expect(status).toContainText(
    `altered: Record ${id} (sequence 2) altered: the decision column says allow, the record says deny; the reason column says nothing, the record says destructive_tool.`,
  );
  const entry = page.getByRole('article', { name: 'Sequence 2 (failed verification)' });
  await expect(entry.getByTestId('integrity-badge')).toHaveText('⚠ altered');
  await expect(page.getByTestId('integrity-badge')).toHaveCount(1);

  // The record page says the same, and gives no proof for it.
  await entry.getByRole('link', { name: 'record' }).click();
  const log = page.getByTestId('log-verification');
  await expect(log).toHaveAttribute('data-state', 'failed');
  await expect(log).toContainText('the decision column says allow, the record says deny');
  // An untouched record: its leaf and inclusion proof against the head.
  const [other] = await sql(
    DB_URL,
    `SELECT id::text AS id FROM "InterceptionRecord" WHERE "sessionId" = $1 AND sequence = 3`,
    [sessionId],
  );
  await page.goto(`/audit/records/${other?.id}`);
  await expect(log).toHaveAttribute('data-state', 'ok');
  await expect(log).toContainText(/Inclusion proof verified against signed tree head #\d+/);
});
