import { type BrowserContext, expect, test } from '@playwright/test';
import { E2E_ADMIN, PORT, registerHost, signIn } from './fixtures';
import { interceptionRecord, type OwnServer, sql, startOwnServer } from './own-server';

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
// PORT + 1 is the stand-in identity provider.
const OWN_PORT = PORT + 3;
const SESSION = `integrity-${run}`;

let own: OwnServer | null = null;
let DB_URL = '';
let context: BrowserContext;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  own = await startOwnServer(`integrity_${run}`, OWN_PORT, {
    REDIS_URL: 'redis://127.0.0.1:6379/13',
  });
  DB_URL = own.dbUrl;
  context = await browser.newContext({ baseURL: own.url });
});

test.afterAll(async () => {
  await context?.close();
  await own?.stop();
});

const record = (sequence: number, decision: 'allow' | 'deny') =>
  interceptionRecord(SESSION, sequence, decision);

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
