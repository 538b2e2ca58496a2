import http from 'node:http';
import { expect, test } from '@playwright/test';
import { E2E_ADMIN, PORT } from './fixtures';

/**
 * Sign-in throttling against the production server: the address it keys on
 * is the socket's, not whatever X-Forwarded-For a client sends (no
 * TRUSTED_PROXIES here), and an attacker cannot lock the owner out. Requests
 * leave from chosen loopback addresses (127.0.0.x) so that each scenario is
 * its own client, and the browser's own address stays clean for other specs.
 */

type Reply = { status: number; location: string; cookies: string[]; body: string };

function send(
  from: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        path,
        method: opts.method ?? 'GET',
        localAddress: from,
        headers: { host: `localhost:${PORT}`, ...opts.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            location: String(res.headers.location ?? ''),
            cookies: (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]),
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** One client (a loopback source address) signing in through Auth.js's credentials callback. */
async function client(from: string) {
  const csrf = await send(from, '/api/auth/csrf');
  expect(csrf.status).toBe(200);
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  const cookie = csrf.cookies.join('; ');
  return async (email: string, password: string, headers: Record<string, string> = {}) => {
    const res = await send(from, '/api/auth/callback/credentials', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie,
        ...headers,
      },
      body: new URLSearchParams({ csrfToken, email, password, callbackUrl: '/' }).toString(),
    });
    expect(res.status).toBe(302);
    const code = new URL(res.location, 'http://x').searchParams.get('code');
    const signedIn = res.cookies.some((c) => c.startsWith('authjs.session-token='));
    return signedIn ? 'signed_in' : (code ?? `unexpected: ${res.location}`);
  };
}

test('rotating X-Forwarded-For from one address is still throttled', async () => {
  const attempt = await client('127.0.0.7');
  const outcomes: string[] = [];
  for (let i = 0; i < 30; i++) {
    outcomes.push(
      await attempt(`nobody${i}@e2e.test`, 'wrong-password', {
        'x-forwarded-for': `198.51.100.${i}`,
        'x-real-ip': `203.0.113.${i}`,
        'x-checkpoint-peer': `192.0.2.${i}`,
      }),
    );
  }
  // 20 failures per client across accounts, then the back-off refuses.
  const failures = outcomes.filter((o) => o === 'invalid_credentials').length;
  expect(failures).toBeGreaterThanOrEqual(20);
  expect(failures).toBeLessThan(25);
  expect(outcomes.filter((o) => o === 'rate_limited').length).toBeGreaterThan(5);
  expect(outcomes.filter((o) => o !== 'invalid_credentials' && o !== 'rate_limited')).toEqual([]);
});

test("an attacker's wrong passwords never lock the owner out", async () => {
  for (const from of ['127.0.0.8', '127.0.0.9']) {
    const attacker = await client(from);
    const outcomes: string[] = [];
    for (let i = 0; i < 8; i++) outcomes.push(await attacker(E2E_ADMIN.email, `guess-${i}`));
    // At most 5 failures, then the back-off (sooner once the account has 10
    // failures in all: a client new to it then waits after its first).
    const failures = outcomes.filter((o) => o === 'invalid_credentials').length;
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(failures).toBeLessThanOrEqual(5);
    expect(outcomes).toContain('rate_limited');
    // The attacker is still refused with the right password: the wait holds.
    expect(await attacker(E2E_ADMIN.email, E2E_ADMIN.password)).toBe('rate_limited');
  }
  // The owner, from a client that has not failed, signs in at once.
  const owner = await client('127.0.0.10');
  expect(await owner(E2E_ADMIN.email, E2E_ADMIN.password)).toBe('signed_in');
});

test('the sign-in page says how many seconds to wait', async ({ page }) => {
  await page.goto('/sign-in');
  const alert = page.locator('#sign-in-message');
  let message = '';
  for (let i = 0; i < 10 && !message.startsWith('Too many'); i++) {
    await page.getByLabel('Email').fill('throttle-ui@e2e.test');
    await page.getByLabel('Password').fill(`wrong-password-${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(alert).toHaveText(/incorrect|Too many/);
    message = (await alert.textContent()) ?? '';
    // The next attempt starts from a fresh alert.
    if (!message.startsWith('Too many')) await page.goto('/sign-in');
  }
  expect(message).toMatch(/^Too many sign-in attempts\. Try again in \d{1,2} s\.$/);
});
