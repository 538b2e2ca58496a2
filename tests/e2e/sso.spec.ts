import { expect, type Page, test } from '@playwright/test';
import { E2E_ADMIN, MOCK_OIDC, signIn, signOut } from './fixtures';

// SSO against a stand-in OIDC provider (tests/e2e/mock-oidc-provider.mjs):
// the real Auth.js flow (discovery, PKCE, state, nonce, signed ID token).

async function ssoSignIn(page: Page, email: string, { verified = true } = {}) {
  await page.goto('/sign-in');
  await page.getByRole('button', { name: `Continue with ${MOCK_OIDC.name}` }).click();
  await expect(page).toHaveURL(new RegExp(`^${MOCK_OIDC.issuer}/authorize`));
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  if (!verified) await page.getByLabel('Email verified').uncheck();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test.describe.configure({ mode: 'serial' });

test('an SSO identity without a Checkpoint user is told to ask an admin', async ({ page }) => {
  await ssoSignIn(page, 'stranger@e2e.test');
  await expect(page).toHaveURL(/\/sign-in\?error=sso_unknown_user/);
  await expect(page.getByRole('main').getByRole('alert')).toContainText('Ask an admin');
  expect((await page.request.get('/api/me')).status()).toBe(401);
});

test('SSO signs in a user an admin added, linking by verified email', async ({ page }) => {
  const email = `sam.${Date.now().toString(36)}@e2e.test`;
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(email);
  await form.getByRole('checkbox', { name: /auditor/ }).check();
  await form.getByLabel('Initial password').fill('sam-initial-password');
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText(`Added ${email}.`);
  await signOut(page);

  // An unverified email does not link.
  await ssoSignIn(page, email, { verified: false });
  await expect(page).toHaveURL(/\/sign-in\?error=sso_unknown_user/);

  await ssoSignIn(page, email);
  await expect(page).toHaveURL(/\/$/);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Audit' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Users' })).toHaveCount(0);
  const me = await (await page.request.get('/api/me')).json();
  expect(me).toMatchObject({ email, roles: ['auditor'] });
  await page.goto('/profile');
  await expect(page.getByRole('definition').filter({ hasText: /^linked$/ })).toBeVisible();
});
