import { type Browser, type ConsoleMessage, expect, type Page } from '@playwright/test';
import { activateUser, initialPasswordFor, signIn } from './fixtures';

/** Helpers of the security specs (headers, statuses). */

export type Account = { email: string; password: string };

/** Adds a user with one role through /users (the page must be signed in as an admin). */
export async function addUser(page: Page, user: Account, role: string) {
  await page.goto('/users');
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(user.email);
  await form.getByRole('checkbox', { name: new RegExp(role) }).check();
  await form.getByLabel('Initial password').fill(initialPasswordFor(user.password));
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText(`Added ${user.email}.`);
  await activateUser(page.context().browser(), user.email, user.password);
}

/** Messages Chromium logs when a policy refuses something. */
const isPolicyMessage = (m: ConsoleMessage) =>
  /Content Security Policy|X-Frame-Options|frame-ancestors/i.test(m.text());

/**
 * A fresh browser context signed in as `user`, starting at `path`, with the
 * policy refusals and page errors it logs from the first request on.
 */
export async function asUser(
  browser: Browser,
  user: Account,
  path: string,
): Promise<{ page: Page; violations: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (isPolicyMessage(m)) violations.push(m.text());
  });
  page.on('pageerror', (e) => violations.push(`pageerror: ${e.message}`));
  await signIn(page, user.email, user.password, path);
  await expect(page).not.toHaveURL(/\/sign-in/);
  return { page, violations };
}
