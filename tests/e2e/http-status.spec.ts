import { type APIRequestContext, expect, test } from '@playwright/test';
import { E2E_ADMIN, registerHost, signIn } from './fixtures';
import { addUser, asUser } from './security-fixtures';

/**
 * Issue item 10: pages answer with the status that says what happened. A
 * page a role may not open redirects (307) to /forbidden, which answers
 * 403; an unknown ticket, session, record, host or user answers 404. Both
 * used to be a 200 whose streamed body redirected or rendered "not found".
 * And /status shows its operational details (data path, database URL,
 * worker pid) to admins only.
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
const REVIEWER = { email: `status-rev.${run}@e2e.test`, password: 'reviewer-pass-123' };
const UNKNOWN = '3f0c8e1a-5b7d-4c2e-9a61-0d4b8f2e7c15';
let hostId = '';
let adminId = '';

/** The status of a GET, redirects not followed, and where a redirect points. */
async function statusOf(request: APIRequestContext, path: string) {
  const res = await request.get(path, { maxRedirects: 0 });
  return { status: res.status(), location: res.headers().location ?? null };
}

test('setup: a reviewer-only user and a host', async ({ page }) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  await expect(page).toHaveURL(/\/users$/);
  await addUser(page, REVIEWER, 'reviewer');
  ({ hostId } = await registerHost(page, `statuses-${run}`));
  adminId = (await (await page.request.get('/api/me')).json()).id;
});

test('a reviewer opening areas of other roles gets a real redirect to /forbidden, which is a 403', async ({
  browser,
}) => {
  const { page } = await asUser(browser, REVIEWER, '/');
  for (const path of [
    '/users',
    `/users/${adminId}`,
    `/users/${UNKNOWN}`,
    '/hosts',
    `/hosts/${hostId}`,
    `/hosts/${hostId}/webhooks`,
    '/audit',
    '/audit/overview',
    '/audit/records/1',
    `/audit/sessions/${UNKNOWN}`,
  ]) {
    // The role check comes first: an unknown id tells the reviewer nothing.
    expect(await statusOf(page.request, path), path).toEqual({
      status: 307,
      location: `/forbidden?from=${encodeURIComponent(path)}`,
    });
    const followed = await page.request.get(path);
    expect(followed.status(), path).toBe(403);
    expect(new URL(followed.url()).pathname).toBe('/forbidden');
  }
  // Their own area still opens.
  expect((await statusOf(page.request, '/approvals')).status).toBe(200);
  await page.context().close();
});

test('unknown or malformed ids answer 404 on every detail page', async ({ page }) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).not.toHaveURL(/\/sign-in/);
  const PAGE = 'Page not found';
  for (const [path, shown] of [
    [`/approvals/${UNKNOWN}`, PAGE],
    ['/approvals/not-a-uuid', PAGE],
    [`/audit/sessions/${UNKNOWN}`, 'No records for this session'],
    ['/audit/sessions/no-such-session', 'No records for this session'],
    ['/audit/records/999999999', 'No such record'],
    ['/audit/records/not-a-number', 'No such record'],
    [`/hosts/${UNKNOWN}`, PAGE],
    ['/hosts/not-a-uuid', PAGE],
    [`/hosts/${UNKNOWN}/webhooks`, PAGE],
    [`/hosts/${UNKNOWN}/webhooks/deliveries`, PAGE],
    [`/users/${UNKNOWN}`, PAGE],
    ['/users/not-a-uuid', PAGE],
  ]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(404);
    await expect(page.locator('main').getByText(shown), path).toBeVisible();
  }
  // The known ones still render.
  for (const path of [
    '/approvals',
    '/audit',
    '/audit/overview',
    '/hosts',
    `/hosts/${hostId}`,
    `/hosts/${hostId}/webhooks`,
    '/users',
    `/users/${adminId}`,
    '/profile',
    '/status',
  ]) {
    expect((await statusOf(page.request, path)).status, path).toBe(200);
  }
});

test('/status shows health to everyone signed in, the data path and worker pid to admins only', async ({
  browser,
  page,
}) => {
  const dataDir = process.env.CHECKPOINT_E2E_DATA_DIR as string;
  expect(dataDir).toBeTruthy();

  const { page: reviewer } = await asUser(browser, REVIEWER, '/status');
  await expect(reviewer.getByTestId('status-health')).toBeVisible();
  await expect(reviewer.getByTestId('status-health')).toContainText('online');
  const seen = await reviewer.content();
  expect(seen).not.toContain(dataDir);
  expect(seen).not.toMatch(/\bpid\b/);
  expect(seen).not.toContain('PGlite');
  await expect(reviewer.getByTestId('status-full')).toHaveCount(0);
  await reviewer.context().close();

  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/status');
  const full = page.getByTestId('status-full');
  await expect(full).toBeVisible();
  await expect(full).toContainText(dataDir);
  await expect(full).toContainText('embedded (PGlite)');
  await expect(full).toContainText(/pid \d+/);
});
