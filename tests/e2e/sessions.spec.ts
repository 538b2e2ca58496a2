import { type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import {
  activateUser,
  E2E_ADMIN,
  initialPasswordFor,
  replacePassword,
  signIn,
  signOut,
} from './fixtures';

/**
 * Sessions end on the server: a password change signs out the user's other
 * browsers, signing out kills the cookie (a saved copy no longer works),
 * "Sign out everywhere" ends them all, and an admin reset ends them and
 * makes the user choose a new password.
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
const USER = { email: `sessions.${run}@e2e.test`, password: 'sessions-pass-1' };

async function signedIn(browser: Browser, password = USER.password) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, USER.email, password);
  await expect(page).toHaveURL(/\/$/);
  return { context, page };
}

async function expectSignedOut(page: Page) {
  expect((await page.request.get('/api/me')).status()).toBe(401);
  await page.goto('/profile');
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fprofile$/);
}

async function expectSignedIn(page: Page) {
  expect((await page.request.get('/api/me')).status()).toBe(200);
  await page.goto('/profile');
  await expect(page).toHaveURL(/\/profile$/);
}

async function closeAll(...contexts: BrowserContext[]) {
  for (const c of contexts) await c.close();
}

test('setup: an admin adds a user, who replaces the initial password', async ({ page }) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(USER.email);
  await form.getByRole('checkbox', { name: /reviewer/ }).check();
  await form.getByLabel('Initial password').fill(initialPasswordFor(USER.password));
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText(`Added ${USER.email}.`);
  await activateUser(page.context().browser(), USER.email, USER.password);
});

test('changing the password in one browser signs the other out; this one stays', async ({
  browser,
}) => {
  const one = await signedIn(browser);
  const two = await signedIn(browser);

  await one.page.goto('/profile');
  const form = one.page.getByRole('form', { name: 'Change password' });
  const next = `${USER.password}-2`;
  await form.getByLabel('Current password').fill(USER.password);
  await form.getByLabel('New password', { exact: true }).fill(next);
  await form.getByLabel('New password, again').fill(next);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByRole('status')).toHaveText('Password changed.');
  USER.password = next;

  await expectSignedIn(one.page);
  await expectSignedOut(two.page);
  await closeAll(one.context, two.context);
});

test('after sign-out, a saved copy of the session cookie signs nobody in', async ({ browser }) => {
  const { context, page } = await signedIn(browser);
  const saved = await context.cookies();
  expect(saved.some((c) => c.name.includes('authjs.session-token'))).toBe(true);
  await signOut(page);

  const replay = await browser.newContext();
  await replay.addCookies(saved);
  const replayPage = await replay.newPage();
  await expectSignedOut(replayPage);
  await closeAll(context, replay);
});

test('"Sign out everywhere" ends every session, this one included', async ({ browser }) => {
  const one = await signedIn(browser);
  const two = await signedIn(browser);
  const saved = await one.context.cookies();

  await one.page.goto('/profile');
  await one.page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(one.page).toHaveURL(/\/sign-in$/);

  await expectSignedOut(one.page);
  await expectSignedOut(two.page);
  const replay = await browser.newContext();
  await replay.addCookies(saved);
  await expectSignedOut(await replay.newPage());
  await closeAll(one.context, two.context, replay);
});

test("an admin's password reset ends the user's sessions and forces a new password", async ({
  browser,
  page,
}) => {
  const user = await signedIn(browser);

  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  await page.getByRole('link', { name: `Manage ${USER.email}` }).click();
  const reset = page.getByRole('form', { name: 'Reset password' });
  const given = 'admin-reset-pass-1';
  await reset.getByLabel('New password').fill(given);
  await reset.getByRole('button', { name: 'Set password' }).click();
  await expect(reset.getByRole('status')).toContainText('sessions ended');

  await expectSignedOut(user.page);

  // The admin-set password only opens the change-password page.
  await signIn(user.page, USER.email, given);
  await expect(user.page).toHaveURL(/\/profile\/password$/);
  const api = await user.page.request.get('/api/approvals/summary');
  expect(api.status()).toBe(403);
  expect((await api.json()).error.code).toBe('password_change_required');
  USER.password = `${USER.password}-3`;
  await replacePassword(user.page, given, USER.password);
  await expectSignedIn(user.page);
  await closeAll(user.context);
});
