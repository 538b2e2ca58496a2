import { spawn } from 'node:child_process';
import path from 'node:path';
import { type Browser, type Page, expect } from '@playwright/test';

/** E2E_PORT lets two runs on one machine keep apart (the IdP takes the next port). */
export const PORT = Number(process.env.E2E_PORT ?? 3210);
export const BASE_URL = `http://localhost:${PORT}`;
/** The first admin, created by ensureInitialAdmin() from ADMIN_EMAIL/ADMIN_PASSWORD. */
export const E2E_ADMIN = { email: 'admin@e2e.test', password: 'e2e-admin-password-1' };

/** The stand-in identity provider (tests/e2e/mock-oidc-provider.mjs). */
export const MOCK_OIDC = {
  port: PORT + 1,
  issuer: `http://127.0.0.1:${PORT + 1}`,
  clientId: 'checkpoint-e2e',
  clientSecret: 'checkpoint-e2e-secret',
  name: 'Test SSO',
};

/** Where screenshots worth keeping go (gitignored). */
export const SCREENSHOTS = 'artifacts/screenshots';

export async function signIn(page: Page, email: string, password: string, path = '/') {
  await page.goto(path);
  await expect(page).toHaveURL(/\/sign-in/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
}

/**
 * The password an admin sets for a user whose own password is `password`:
 * admin-set passwords must be replaced at the first sign-in, so specs add
 * users with this one and then call activateUser.
 */
export const initialPasswordFor = (password: string) => `${password}-initial`;

/** On /profile/password (a forced change): replaces `current` with `next`. */
export async function replacePassword(page: Page, current: string, next: string) {
  await expect(page).toHaveURL(/\/profile\/password$/);
  const form = page.getByRole('form', { name: 'Choose a new password' });
  await form.getByLabel('Current password').fill(current);
  await form.getByLabel('New password', { exact: true }).fill(next);
  await form.getByLabel('New password, again').fill(next);
  await form.getByRole('button', { name: 'Save new password' }).click();
  await expect(page).not.toHaveURL(/\/profile\/password|\/sign-in/);
}

/**
 * A user's first sign-in, in a context of its own: signs in with the
 * admin-set initialPasswordFor(password) and replaces it with `password`,
 * which then signs in like any other.
 */
export async function activateUser(browser: Browser | null, email: string, password: string) {
  if (!browser) throw new Error('activateUser needs the browser of the page');
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, email, initialPasswordFor(password));
  await replacePassword(page, initialPasswordFor(password), password);
  await context.close();
}

/**
 * Registers a host and issues its API key through /hosts, as an admin would
 * (the page must be signed in as an admin). The key is shown once: read here.
 */
export async function registerHost(
  page: Page,
  name: string,
  options: { redact?: readonly string[]; keyName?: string } = {},
): Promise<{ hostId: string; apiKey: string }> {
  await page.goto('/hosts');
  const form = page.getByRole('form', { name: 'Register a host' });
  await form.getByLabel('Name').fill(name);
  if (options.redact) await form.getByLabel('Redaction paths').fill(options.redact.join('\n'));
  await form.getByRole('button', { name: 'Register host' }).click();
  // The banner drops ?created=1 from the address once shown.
  await expect(page).toHaveURL(/\/hosts\/[0-9a-f-]{36}(\?created=1)?$/);
  const hostId = new URL(page.url()).pathname.split('/')[2] as string;
  await page.getByLabel('Key name').fill(options.keyName ?? 'e2e');
  await page.getByRole('button', { name: 'Create key' }).click();
  const apiKey = await page
    .getByRole('region', { name: 'New API key' })
    .getByLabel('API key')
    .inputValue();
  expect(apiKey).toMatch(/^ck_/);
  return { hostId, apiKey };
}

export type Child = {
  done: Promise<{ code: number | null; output: string }>;
  kill: () => void;
  /** stdout and stderr so far, interleaved. */
  output: () => string;
};

/** A child process whose output the test reads as it comes. */
export function runChild(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Child {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (b) => {
    output += String(b);
  });
  child.stderr.on('data', (b) => {
    output += String(b);
  });
  const done = new Promise<{ code: number | null; output: string }>((resolve) => {
    child.on('exit', (code) => resolve({ code, output }));
  });
  return { done, kill: () => child.kill('SIGTERM'), output: () => output };
}

/** `npm run demo:agent` as a child process against the test server. */
export function startDemoAgent(apiKey: string, extraArgs: readonly string[] = []): Child {
  const tsx = path.join('node_modules', 'tsx', 'dist', 'cli.mjs');
  return runChild(process.execPath, [tsx, 'scripts/demo-agent.ts', ...extraArgs], {
    env: { CHECKPOINT_URL: BASE_URL, CHECKPOINT_API_KEY: apiKey },
  });
}
