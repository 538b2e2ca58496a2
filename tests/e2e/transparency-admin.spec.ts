import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { E2E_ADMIN, PORT, registerHost, signIn } from './fixtures';
import { interceptionRecord, type OwnServer, sql, startOwnServer } from './own-server';

/**
 * Issue 13 item 4, the admin's side in the browser: witnesses registered on
 * /settings/witnesses (through the SSRF guard, secret shown once, every
 * signed tree head delivered), the transparency-log section of /status with
 * "Verify now", and the banner every admin page shows after a verification
 * failed, naming the record a database shell altered. A key planted in
 * SigningKey is shown on /status and not published. Like
 * audit-integrity.spec.ts, on a server of its own over a PostgreSQL
 * database the test can write to (the shared server's embedded database
 * admits no second process).
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
// PORT + 1 is the stand-in identity provider, PORT + 3 audit-integrity.spec.ts's server.
const OWN_PORT = PORT + 5;
const SESSION = `transparency-${run}`;

/** A witness on loopback: acknowledges every head with 200 and keeps what it got. */
const received: { headers: Record<string, unknown>; body: string }[] = [];
let witness: Server | null = null;
let witnessUrl = '';

let own: OwnServer | null = null;
let DB_URL = '';
let context: BrowserContext;
let page: Page;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  witness = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += String(c);
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => witness?.listen(0, '127.0.0.1', r));
  witnessUrl = `http://127.0.0.1:${(witness.address() as AddressInfo).port}/tree-heads`;

  own = await startOwnServer(`transparency_${run}`, OWN_PORT, {
    REDIS_URL: 'redis://127.0.0.1:6379/12',
    // Its own queues, whatever else shares this Redis database.
    QUEUE_PREFIX: `e2e-transparency-${run}`,
    // The witness listens on loopback over http (as webhooks.spec.ts's receivers do).
    WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true',
  });
  DB_URL = own.dbUrl;
  context = await browser.newContext({ baseURL: own.url });
  page = await context.newPage();
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/hosts');
  await expect(page).toHaveURL(/\/hosts$/);
});

test.afterAll(async () => {
  await context?.close();
  await own?.stop();
  await new Promise((r) => (witness ? witness.close(r) : r(null)));
});

const record = (sequence: number, decision: 'allow' | 'deny') =>
  interceptionRecord(SESSION, sequence, decision);

/** "Verify now" on /status, then reloads until that run (not an earlier one) is shown. */
async function verifyNow(): Promise<void> {
  await page.goto('/status');
  const section = page.getByTestId('status-transparency-log');
  const manualRuns = async () =>
    (
      await sql(DB_URL, `SELECT count(*)::int AS n FROM "LogVerification" WHERE trigger = 'manual'`)
    )[0].n as number;
  const before = await manualRuns();
  await section.getByRole('button', { name: 'Verify now' }).click();
  await expect(section.getByTestId('verify-log-now')).toContainText('Verification queued');
  await expect.poll(manualRuns, { timeout: 30_000, intervals: [500] }).toBeGreaterThan(before);
  await page.reload();
}

test('witnesses: the SSRF guard refuses a private address; a loopback witness gets its secret once and every head', async () => {
  await page.goto('/settings/witnesses');
  await expect(page.getByRole('heading', { name: 'Witnesses' })).toBeVisible();
  await expect(page.getByText('No witness yet.')).toBeVisible();
  const form = page.getByTestId('register-witness');

  await form.getByLabel('Witness URL').fill('http://10.11.12.13/tree-heads');
  await form.getByRole('button', { name: 'Register' }).click();
  await expect(form.getByRole('alert').first()).toBeVisible();
  await expect(form.getByTestId('witness-secret')).toHaveCount(0);
  await expect(page.getByText('No witness yet.')).toBeVisible();

  await form.getByLabel('Witness URL').fill(witnessUrl);
  await form.getByRole('button', { name: 'Register' }).click();
  await expect(form).toContainText(`Registered ${witnessUrl}`);
  const secret = await form.getByTestId('witness-secret').textContent();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  const row = page.locator(`tr[data-witness="${witnessUrl}"]`);
  await expect(row).toBeVisible();

  // Shown once: a reload lists the witness without its secret.
  await page.reload();
  await expect(page.getByTestId('witness-secret')).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText(secret as string);

  // Records make the log grow; each signed head is POSTed to the witness and acknowledged.
  const { apiKey } = await registerHost(page, `transparency-${run}`);
  const res = await page.request.post('/api/v1/records', {
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    data: [0, 1, 2, 3, 4].map((i) => record(i, i === 2 ? 'deny' : 'allow')),
  });
  expect(res.status()).toBeLessThan(300);
  await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThan(0);
  const delivered = JSON.parse(received[0].body);
  expect(delivered).toMatchObject({
    type: 'checkpoint.tree_head',
    tree_head: { size: expect.any(Number), root_hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
  });
  expect(received[0].headers['webhook-signature']).toMatch(/^v1,/);
  await expect(async () => {
    await page.goto('/settings/witnesses');
    await expect(row.locator('td').nth(1)).toContainText(/^[1-9]\d*/, { timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(row).toContainText(/up to size \d+/);
});

test('/status: "Verify now" passes the log; after an UPDATE in the database the banner names the record', async () => {
  test.setTimeout(120_000);
  await verifyNow();
  const section = page.getByTestId('status-transparency-log');
  await expect(section).toContainText('Transparency log');
  await expect(section).toContainText('verified');
  await expect(section).toContainText('0 failing');
  await expect(page.getByTestId('log-integrity-alert')).toHaveCount(0);

  // A rogue operator turns the deny into an allow, straight in the database.
  const [altered] = await sql(
    DB_URL,
    `UPDATE "InterceptionRecord" SET decision = 'allow', reason = NULL
     WHERE "sessionId" = $1 AND sequence = 2 RETURNING id::text AS id`,
    [`transparency-${run}`],
  );
  const id = altered?.id as string;
  expect(id).toMatch(/^\d+$/);
  await verifyNow();
  await expect(section).toContainText('FAILED');
  await expect(page.getByTestId('log-first-failure')).toContainText(
    new RegExp(
      `^altered: record ${id} \\(.*sequence 2\\) no longer matches leaf \\d+ \\(decision, reason\\)`,
    ),
  );
  await expect(page.getByTestId('log-findings').locator('li[data-problem="altered"]')).toHaveCount(
    1,
  );

  // The banner: on every page an admin opens, naming the record, linking to /status.
  await page.goto('/hosts');
  const banner = page.getByTestId('log-integrity-alert');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('Transparency log verification failed');
  await expect(banner).toContainText(`altered — record ${id} (`);
  await expect(banner).toContainText('no longer matches leaf');
  await banner.getByRole('link', { name: 'Details on /status' }).click();
  await expect(page).toHaveURL(/\/status#transparency-log$/);
});

test('a signing key planted in the database is shown on /status and not published', async () => {
  const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  await sql(
    DB_URL,
    `INSERT INTO "SigningKey" (kid, alg, "publicJwk", "privateKey", "createdBy", "retiredAt")
     VALUES ($1, 'EdDSA', $2::jsonb, 'not-a-key', 'system', now())`,
    [kid, JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: jwk.x })],
  );
  const jwks = (await (await page.request.get('/.well-known/jwks.json')).json()) as {
    keys: { kid: string }[];
  };
  expect(jwks.keys.length).toBeGreaterThan(0);
  expect(jwks.keys.map((k) => k.kid)).not.toContain(kid);
  await page.goto('/status');
  const planted = page.getByTestId('unauthentic-signing-keys');
  await expect(planted).toContainText(kid);
  await expect(planted).toContainText('not authentic');
  await expect(planted).toContainText("does not decrypt with this deployment's APP_ENCRYPTION_KEY");
  // The signing-keys page lists the row, saying what it is.
  await page.goto('/settings/signing-keys');
  const row = page.locator(`tr[data-kid="${kid}"]`);
  await expect(row).toHaveAttribute('data-state', 'not-authentic');
  await expect(row).toContainText('not authentic');
  await expect(page.locator('tr[data-state="active"]')).toHaveCount(1);
});
