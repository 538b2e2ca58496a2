import { expect, test } from '@playwright/test';
import { E2E_ADMIN, signIn } from './fixtures';

/**
 * Signing keys in a browser (issue 13 item 1): the key generated at first
 * start is listed and published; rotating from the admin page asks first,
 * then the new key is active and the old one stays in the public JWKS.
 */

type Jwks = { keys: { kid: string; kty: string; crv: string; alg: string; use: string }[] };

test('an admin rotates the signing key; both keys stay published at /.well-known/jwks.json', async ({
  page,
  request,
}) => {
  // Public: no session, no key.
  const before = await request.get('/.well-known/jwks.json', { maxRedirects: 0 });
  expect(before.status()).toBe(200);
  expect(before.headers()['cache-control']).toBe('public, max-age=300');
  const published = ((await before.json()) as Jwks).keys;
  expect(published.length).toBeGreaterThanOrEqual(1);
  expect(published[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
  const active = published[0].kid;

  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/settings/signing-keys');
  await expect(page).toHaveURL(/\/settings\/signing-keys$/);
  await expect(page.locator(`tr[data-kid="${active}"]`)).toHaveAttribute('data-state', 'active');

  await page.getByRole('button', { name: 'Rotate…' }).click();
  await expect(page.getByText('The current key is retired, not deleted')).toBeVisible();
  await page.getByRole('button', { name: 'Rotate now' }).click();
  const done = page.getByRole('status').filter({ hasText: 'Rotated:' });
  await expect(done).toHaveAttribute('data-code', 'rotated');
  await expect(page.locator(`tr[data-kid="${active}"]`)).toHaveAttribute('data-state', 'retired');
  await expect(page.locator('tr[data-state="active"]')).toHaveCount(1);
  const next = await page.locator('tr[data-state="active"]').getAttribute('data-kid');
  expect(next).not.toBe(active);
  await expect(done).toContainText(next as string);

  const after = ((await (await request.get('/.well-known/jwks.json')).json()) as Jwks).keys;
  expect(after.map((k) => k.kid).slice(0, 2)).toEqual([next, active]);
});
