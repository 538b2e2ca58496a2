import { expect, test } from '@playwright/test';
import {
  BASE_URL,
  E2E_ADMIN,
  initialPasswordFor,
  replacePassword,
  SCREENSHOTS,
  signIn,
  signOut,
} from './fixtures';

// A fresh address per run of the creating test, so that retries and
// --repeat-each work against the same database.
const REVIEWER = {
  email: '',
  name: 'Rita Reviewer',
  password: 'reviewer-pass-123',
};

test.describe.configure({ mode: 'serial' });

test('an unauthenticated visit to a protected page goes to sign-in, and comes back after', async ({
  page,
}) => {
  await page.goto('/users');
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fusers$/);
  await expect(page.getByRole('heading', { name: 'Sign in to Checkpoint' })).toBeVisible();
  await page.screenshot({ path: `${SCREENSHOTS}/sign-in.png`, fullPage: true });

  await page.getByLabel('Email').fill(E2E_ADMIN.email);
  await page.getByLabel('Password').fill(E2E_ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/users$/);
  await expect(page.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();
});

test('an unauthenticated API request answers 401 JSON', async ({ request }) => {
  for (const path of ['/api/me', '/api/hosts']) {
    const res = await request.get(path);
    expect(res.status()).toBe(401);
    expect(res.headers()['content-type']).toContain('application/json');
    expect((await res.json()).error.code).toBe('unauthenticated');
  }
  // Health stays open for probes.
  expect((await request.get('/api/health')).status()).toBe(200);
});

test('a wrong password shows an error and signs nobody in', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(E2E_ADMIN.email);
  await page.getByLabel('Password').fill('not-the-password');
  // Keyboard path: Enter in the password field submits.
  await page.getByLabel('Password').press('Enter');
  const alert = page.getByRole('main').getByRole('alert');
  await expect(alert).toHaveText('Email or password is incorrect.');
  await expect(page).toHaveURL(/\/sign-in/);
  // The email is kept, the password is not.
  await expect(page.getByLabel('Email')).toHaveValue(E2E_ADMIN.email);
  await expect(page.getByLabel('Password')).toHaveValue('');
  expect((await page.request.get('/api/me')).status()).toBe(401);
});

test('an admin creates a reviewer and signs out; the reviewer cannot reach Users', async ({
  page,
}) => {
  REVIEWER.email = `rita.${Date.now().toString(36)}@e2e.test`;
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  await expect(page).toHaveURL(/\/users$/);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Users' })).toBeVisible();
  // Issue 14: an admin's start page offers every area and setting the navigation does.
  await page.goto('/');
  for (const name of [
    'Approvals',
    'Audit',
    'Hosts',
    'Users',
    'Slack',
    'Signing keys',
    'Witnesses',
    'Profile',
    'Status',
  ])
    await expect(
      page.getByRole('main').getByRole('link', { name: new RegExp(`^${name}`) }),
    ).toBeVisible();
  await page.goto('/users');
  await expect(page.getByTestId('queue-badge')).toBeVisible();

  // A too-short password is refused inline, with its stable code, and nothing is created.
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(REVIEWER.email);
  await form.getByLabel('Name').fill(REVIEWER.name);
  await form.getByRole('checkbox', { name: /reviewer/ }).check();
  await form.getByLabel('Initial password').fill('short');
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.locator('[data-code="password_too_short"]')).toBeVisible();
  await expect(page.getByRole('table')).not.toContainText(REVIEWER.email);

  await form.getByLabel('Initial password').fill(initialPasswordFor(REVIEWER.password));
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText(`Added ${REVIEWER.email}.`);
  const row = page.getByRole('row').filter({ hasText: REVIEWER.email });
  await expect(row).toContainText('reviewer');
  await expect(row).toContainText('Active');
  await page.screenshot({ path: `${SCREENSHOTS}/users.png`, fullPage: true });

  await signOut(page);
  expect((await page.request.get('/api/me')).status()).toBe(401);

  // The admin-set password signs in only to be replaced: every page leads
  // to the change, every API call with the cookie answers 403.
  const initial = initialPasswordFor(REVIEWER.password);
  await signIn(page, REVIEWER.email, initial);
  await expect(page).toHaveURL(/\/profile\/password$/);
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  const pending = await page.request.get('/api/me');
  expect(pending.status()).toBe(403);
  expect((await pending.json()).error.code).toBe('password_change_required');
  await page.goto('/approvals');
  await expect(page).toHaveURL(/\/profile\/password$/);
  const form2 = page.getByRole('form', { name: 'Choose a new password' });
  await form2.getByLabel('Current password').fill(initial);
  await form2.getByLabel('New password', { exact: true }).fill(initial);
  await form2.getByLabel('New password, again').fill(initial);
  await form2.getByRole('button', { name: 'Save new password' }).click();
  await expect(form2.locator('[data-code="password_unchanged"]')).toBeVisible();
  await replacePassword(page, initial, REVIEWER.password);
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: `Welcome, ${REVIEWER.name}` })).toBeVisible();
  const reviewerNav = page.getByRole('navigation', { name: 'Main' });
  await expect(reviewerNav.getByRole('link', { name: 'Approvals' })).toBeVisible();
  await expect(reviewerNav.getByRole('link', { name: 'Users' })).toHaveCount(0);
  await expect(reviewerNav.getByRole('link', { name: 'Hosts' })).toHaveCount(0);
  // Issue 14: the start page lists what the navigation lists, nothing a reviewer cannot open.
  const start = page.getByRole('main');
  await expect(start.getByRole('link', { name: /^Approvals/ })).toBeVisible();
  for (const name of ['Audit', 'Hosts', 'Users', 'Slack', 'Signing keys', 'Witnesses'])
    await expect(start.getByRole('link', { name: new RegExp(`^${name}`) })).toHaveCount(0);

  await page.goto('/users');
  await expect(page.getByRole('heading', { name: "You don't have access" })).toBeVisible();
  await expect(page).toHaveURL(/\/forbidden\?from=%2Fusers$/);
  // The guard's redirect may arrive mid-stream (then the router follows it), so
  // the page's own status is asserted directly.
  expect((await page.request.get('/forbidden?from=%2Fusers')).status()).toBe(403);
  await expect(page.getByRole('table')).toHaveCount(0);
  const me = await page.request.get('/api/me');
  expect(await me.json()).toMatchObject({ email: REVIEWER.email, roles: ['reviewer'] });
});

test('disabling a user ends their session at once', async ({ browser }) => {
  const reviewer = await browser.newContext();
  const reviewerPage = await reviewer.newPage();
  await signIn(reviewerPage, REVIEWER.email, REVIEWER.password);
  await expect(reviewerPage).toHaveURL(/\/$/);

  const admin = await browser.newContext();
  const adminPage = await admin.newPage();
  await signIn(adminPage, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  await adminPage.getByRole('link', { name: `Manage ${REVIEWER.email}` }).click();
  await adminPage.getByRole('button', { name: 'Disable account' }).click();
  await expect(adminPage.getByRole('status').filter({ hasText: 'disabled' })).toBeVisible();

  // Same cookie as before, but the user is re-read on every request.
  expect((await reviewerPage.request.get('/api/me')).status()).toBe(401);
  await reviewerPage.goto('/profile');
  await expect(reviewerPage).toHaveURL(/\/sign-in\?next=%2Fprofile$/);
  await expect(reviewerPage.getByRole('navigation', { name: 'Main' })).toHaveCount(0);

  // Last-admin protection, in the UI too: no disabling or demoting oneself.
  await adminPage.goto('/users');
  await adminPage.getByRole('link', { name: `Manage ${E2E_ADMIN.email}` }).click();
  await expect(adminPage.getByRole('button', { name: 'Disable account' })).toBeDisabled();
  const adminBox = adminPage.getByRole('checkbox', { name: /^admin/ });
  await adminBox.uncheck();
  await expect(adminBox).not.toBeChecked();
  await adminPage.getByRole('button', { name: 'Save roles' }).click();
  await expect(adminPage.getByRole('main').getByRole('alert')).toHaveText(
    'You cannot remove your own admin role.',
  );
  await adminPage.reload();
  await expect(adminPage.getByRole('checkbox', { name: /^admin/ })).toBeChecked();

  await reviewer.close();
  await admin.close();
});

// Each of these once ended at http://evil.example/ after a successful
// sign-in: the action's redirect went out as `/.//evil.example`, which the
// client router reads as protocol-relative. Non-ASCII ones answered 500
// (after setting the session cookie).
const HOSTILE_NEXT = [
  '/.//evil.example',
  '/a/..//evil.example/phish',
  '/%2e//evil.example',
  '/./\\evil.example',
  '//evil.example',
  '/\\evil.example',
  'https://evil.example/',
  '/。evil',
  '/é',
];

test('sign-in never leaves the site, whatever ?next= says', async ({ browser }) => {
  for (const next of HOSTILE_NEXT) {
    const context = await browser.newContext();
    // Should the app send the browser there, it lands on this stand-in
    // rather than the network.
    await context.route(
      (url) => url.hostname.endsWith('evil.example'),
      (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>phished</h1>' }),
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('response', (res) => {
      if (res.status() >= 500) errors.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(`/sign-in?next=${encodeURIComponent(next)}`);
    await page.getByLabel('Email').fill(E2E_ADMIN.email);
    await page.getByLabel('Password').fill(E2E_ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).not.toHaveURL(/\/sign-in/);
    await page.waitForLoadState('load');
    const url = new URL(page.url());
    expect(url.origin, `next=${next}`).toBe(new URL(BASE_URL).origin);
    expect(url.pathname, `next=${next}`).not.toMatch(/^\/[/\\]/);
    expect(errors, `next=${next}`).toEqual([]);
    expect((await page.request.get('/api/me')).status(), `next=${next}`).toBe(200);
    await context.close();
  }
});
