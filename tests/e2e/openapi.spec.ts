import { expect, test } from '@playwright/test';
import { BASE_URL, E2E_ADMIN, registerHost, runChild, SCREENSHOTS, signIn } from './fixtures';

/**
 * The host API's OpenAPI document: public JSON at /api/v1/openapi.json,
 * rendered at /docs/api by the Redoc bundle served from this origin (nothing
 * else is fetched), and the generated Python client driving a real approval
 * from the system python3.
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);

test('GET /api/v1/openapi.json is public JSON: an OpenAPI 3.1.0 document of the host API', async ({
  playwright,
}) => {
  // A context of its own: no session cookie, no key.
  const anonymous = await playwright.request.newContext({ baseURL: BASE_URL });
  const res = await anonymous.get('/api/v1/openapi.json');
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toMatch(/^application\/json/);
  const doc = JSON.parse(await res.text());
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.paths['/api/v1/approvals'].post.operationId).toBe('createApproval');
  expect(doc.components.securitySchemes.hostApiKey).toMatchObject({ scheme: 'bearer' });
  await anonymous.dispose();
});

test('/docs/api renders the operations with the local renderer, reaching nothing but this origin', async ({
  page,
}) => {
  const external: string[] = [];
  const unblocked: string[] = [];
  const ours = (url: string) => url.startsWith(BASE_URL) || /^(data|blob):/.test(url);
  page.on('request', (req) => {
    if (!ours(req.url())) external.push(req.url());
  });
  page.on('response', (res) => {
    if (!ours(res.url())) unblocked.push(`response ${res.url()} ${res.status()}`);
  });
  page.on('requestfailed', (req) => {
    // The CSP refuses Redoc's remote logo before any connection is made.
    if (!ours(req.url()) && req.failure()?.errorText !== 'csp') {
      unblocked.push(`failed ${req.url()} ${req.failure()?.errorText}`);
    }
  });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes('https://cdn.redoc.ly/')) errors.push(m.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));

  // Public, like the document: a host developer reads it without an account.
  await page.goto('/docs/api');
  await expect(page).toHaveURL(/\/docs\/api$/);
  await expect(page).toHaveTitle('Checkpoint host API');
  const create = page.locator('#operation\\/createApproval');
  await expect(create.getByRole('heading', { name: 'Ask for approval' })).toBeVisible();
  await expect(create).toContainText('/api/v1/approvals');
  await expect(page.getByRole('heading', { name: 'Wait for the resolution' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Register or re-point a webhook' })).toBeVisible();
  // The error table of the description, and the auth scheme.
  await expect(page.getByText('verdict_not_liftable').first()).toBeVisible();
  await expect(page.getByText('hostApiKey').first()).toBeAttached();
  await page.screenshot({ path: `${SCREENSHOTS}/docs-api.png` });
  await create.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SCREENSHOTS}/docs-api-create-approval.png` });

  expect(unblocked).toEqual([]);
  expect(external.every((url) => url.startsWith('https://cdn.redoc.ly/'))).toBe(true);
  // The renderer runs under the CSP as it is (no eval, no inline script).
  expect(errors).toEqual([]);
});

test('the generated Python client asks for approval, waits, and prints the reviewer’s decision', async ({
  page,
}) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/hosts');
  await expect(page).toHaveURL(/\/hosts$/);
  const { apiKey } = await registerHost(page, `python-${run}`);
  const example = runChild('python3', ['docs/python/example.py', '--url', BASE_URL], {
    env: { CHECKPOINT_API_KEY: apiKey, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
  });
  try {
    await expect.poll(example.output, { timeout: 20_000 }).toMatch(/ticket [0-9a-f-]{36} pending/);
    const id = /ticket ([0-9a-f-]{36})/.exec(example.output())![1];
    await page.goto(`/approvals/${id}`);
    await expect(page.getByRole('heading', { name: 'wire_transfer', level: 1 })).toBeVisible();
    await page.locator('#approve-button').click();
    await expect(page.getByTestId('decision-summary')).toContainText('Approved');

    const { code, output } = await example.done;
    expect(output).toContain('outcome: approve');
    // The verdict points at the signed receipt (§5.3 evidence, docs/receipts.md).
    expect(output).toMatch(
      /verdict: \{"decision": "allow", "evidence": \{"artefact": "sha256:[0-9a-f]{64}", "verification_pointers": \{/,
    );
    expect(code).toBe(0);
  } finally {
    example.kill();
  }
});
