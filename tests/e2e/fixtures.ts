import { type Page, expect } from '@playwright/test';

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
