import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { testAgent } from './approvals-agent';
import { BASE_URL, E2E_ADMIN, registerHost, signIn } from './fixtures';
import { addUser, asUser } from './security-fixtures';

/**
 * Clickjacking (issue item 3): a page on another port of the same site
 * framed a ticket, and one click approved it. Every answer now refuses to
 * be framed (CSP frame-ancestors 'none', X-Frame-Options DENY) and pages
 * run only scripts carrying the request's nonce, which must not break the
 * app itself.
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
const REVIEWER = { email: `csp-rev.${run}@e2e.test`, password: 'reviewer-pass-123' };
let ticketPath = '';
let agent: ReturnType<typeof testAgent>;
let outcome: Promise<{ status: string }>;

test('setup: a reviewer, a host, and a pending ticket', async ({ page }) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  await expect(page).toHaveURL(/\/users$/);
  await addUser(page, REVIEWER, 'reviewer');
  const { hostId, apiKey } = await registerHost(page, `framing-${run}`);
  agent = testAgent({ baseUrl: BASE_URL, apiKey, redact: [] });
  outcome = agent.call(`sess-${run}-frame`, 'send_email', { to: 'x@example.com', subject: 'hi' });
  const row = page.locator('[data-ticket-row]').first();
  await expect(async () => {
    await page.goto(`/approvals?host=${hostId}`);
    await expect(row).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  ticketPath = (await row.getAttribute('data-href')) ?? '';
  expect(ticketPath).toMatch(/^\/approvals\/[0-9a-f-]{36}$/);
});

/** A page of the attacker's, served from another port of this same site (localhost). */
async function framingSite(
  targets: string[],
): Promise<{ url: string; close: () => Promise<void> }> {
  const frames = targets
    .map((t, i) => `<iframe id="app${i}" src="${BASE_URL}${t}" width="800" height="400"></iframe>`)
    .join('\n');
  const html = `<!doctype html><html><body>
<h1>Win a prize</h1>
${frames}
<iframe id="own" src="/own" width="300" height="100"></iframe>
</body></html>`;
  const own = '<!doctype html><button>Approve</button>';
  const handler = (req: { url?: string }, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(req.url === '/own' ? own : html);
  };
  // Both loopback families on one port: Chromium may try either for "localhost".
  const v4: Server = createServer(handler);
  await new Promise<void>((resolve) => v4.listen(0, '127.0.0.1', resolve));
  const { port } = v4.address() as AddressInfo;
  const v6: Server = createServer(handler);
  await new Promise<void>((resolve) => {
    v6.once('error', () => resolve());
    v6.listen(port, '::1', resolve);
  });
  const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));
  return {
    url: `http://localhost:${port}/`,
    close: async () => {
      await close(v4);
      if (v6.listening) await close(v6);
    },
  };
}

test('a page on another port cannot frame the ticket or the start page, though signed in', async ({
  browser,
}) => {
  const { page, violations } = await asUser(browser, REVIEWER, ticketPath);
  // Signed in: the ticket itself offers the decision at the top level.
  await expect(page.getByRole('button', { name: /^Approve/ }).first()).toBeVisible();

  const site = await framingSite([ticketPath, '/']);
  try {
    await page.goto(site.url);
    await expect(page.getByRole('heading', { name: 'Win a prize' })).toBeVisible();
    // The control: the attacker's own frame renders, so framing itself works here.
    const own = page.frameLocator('#own');
    await expect(own.getByRole('button', { name: 'Approve' })).toBeVisible();
    // The browser names the refusal.
    await expect
      .poll(() => violations.filter((v) => /frame-ancestors 'none'|X-Frame-Options/.test(v)).length)
      .toBeGreaterThanOrEqual(2);
    for (const id of ['#app0', '#app1']) {
      const frame = await (await page.locator(id).elementHandle())?.contentFrame();
      expect(frame, `${id} has a frame`).toBeTruthy();
      // Nothing of the app rendered: no decision, no navigation, no sign-out.
      expect(frame?.url().startsWith(BASE_URL)).toBe(false);
      await expect(page.frameLocator(id).getByRole('button')).toHaveCount(0);
      await expect(page.frameLocator(id).getByRole('navigation')).toHaveCount(0);
    }
  } finally {
    await site.close();
    await page.context().close();
  }
});

function expectSecurityHeaders(headers: Record<string, string>) {
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  expect(headers['permissions-policy']).toContain('camera=()');
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  // Served over plain http: no HSTS.
  expect(headers['strict-transport-security']).toBeUndefined();
}

function nonceOf(policy: string): string {
  const m = /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy);
  expect(m, policy).toBeTruthy();
  return m?.[1] as string;
}

test('pages, API answers, sign-in and static files carry the headers; every script has the nonce', async ({
  page,
  playwright,
}) => {
  const anonymous = await playwright.request.newContext({ baseURL: BASE_URL });
  try {
    // Sign-in, anonymous: a page with a fresh nonce per request.
    const signInRes = await anonymous.get('/sign-in');
    expect(signInRes.status()).toBe(200);
    const headers = signInRes.headers();
    expectSecurityHeaders(headers);
    const policy = headers['content-security-policy'] as string;
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("base-uri 'none'");
    expect(policy).toMatch(/form-action 'self'/);
    expect(policy).not.toContain('unsafe-eval');
    const nonce = nonceOf(policy);
    const again = await anonymous.get('/sign-in');
    expect(nonceOf(again.headers()['content-security-policy'] as string)).not.toBe(nonce);
    // Next stamped every script of the page with this request's nonce.
    const html = await signInRes.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);

    // API answers, open and refused alike.
    for (const [path, status] of [
      ['/api/health', 200],
      ['/api/me', 401],
    ] as const) {
      const res = await anonymous.get(path);
      expect(res.status(), path).toBe(status);
      expectSecurityHeaders(res.headers());
      expect(res.headers()['content-security-policy']).toContain("default-src 'none'");
    }
    // The redirect to sign-in, too.
    const redirect = await anonymous.get('/approvals', { maxRedirects: 0 });
    expect(redirect.status()).toBe(307);
    expectSecurityHeaders(redirect.headers());

    // Static files, which the proxy never sees.
    const src = /<script\b[^>]*\ssrc="(\/_next\/static\/[^"]+)"/.exec(html)?.[1];
    expect(src).toBeTruthy();
    for (const path of [src as string, '/favicon.svg']) {
      const res = await anonymous.get(path);
      expect(res.status(), path).toBe(200);
      expect(res.headers()['x-frame-options'], path).toBe('DENY');
      expect(res.headers()['x-content-type-options'], path).toBe('nosniff');
      expect(res.headers()['content-security-policy'], path).toContain("frame-ancestors 'none'");
    }

    // The API reference keeps its own policy (a blob: worker for Redoc), framed by no one.
    const docs = await anonymous.get('/docs/api');
    expect(docs.status()).toBe(200);
    expect(docs.headers()['x-frame-options']).toBe('DENY');
    expect(docs.headers()['permissions-policy']).toContain('camera=()');
    expect(docs.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(docs.headers()['content-security-policy']).toContain('worker-src');

    // Behind a TLS-terminating proxy: HSTS, and http subresources upgraded.
    const tls = await anonymous.get('/sign-in', { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(tls.headers()['strict-transport-security']).toBe('max-age=31536000');
    expect(tls.headers()['content-security-policy']).toContain('upgrade-insecure-requests');
  } finally {
    await anonymous.dispose();
  }

  // A signed-in page and a signed-in API answer.
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, ticketPath);
  await expect(page).toHaveURL(new RegExp(`${ticketPath}$`));
  const ticket = await page.request.get(ticketPath);
  expect(ticket.status()).toBe(200);
  expectSecurityHeaders(ticket.headers());
  const me = await page.request.get('/api/me');
  expect(me.status()).toBe(200);
  expectSecurityHeaders(me.headers());
  // A client that sends its own policy does not choose the nonce.
  const forged = await page.request.get('/', {
    headers: { 'Content-Security-Policy': "script-src 'nonce-attacker'" },
  });
  expect(forged.headers()['content-security-policy']).not.toContain('attacker');
  expect(await forged.text()).not.toContain('nonce="attacker"');
});

test('the app works under its policy: sign-in, queue, ticket and a decision log no violation', async ({
  browser,
}) => {
  const { page, violations } = await asUser(browser, REVIEWER, '/approvals');
  await expect(page.getByRole('heading', { name: 'Approvals', level: 1 })).toBeVisible();
  // The live feed (server-sent events) connects under connect-src 'self'.
  await expect(page.locator('[data-live="live"]')).toBeVisible();
  await page.goto(ticketPath);
  await expect(page.getByRole('heading', { name: 'send_email', level: 1 })).toBeVisible();
  // The decision panel hydrated (its keyboard shortcuts are live).
  await expect(page.locator('[data-keys="ready"]')).toBeVisible();
  await page.getByRole('button', { name: /^Reject/ }).click();
  await page.getByLabel(/Why reject it/).fill('Not from a framed page.');
  await page.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(page.getByTestId('decision-summary')).toContainText('Rejected');
  expect((await outcome).status).toBe('blocked');
  await page.goto('/status');
  await expect(page.getByRole('heading', { name: 'System status' })).toBeVisible();
  expect(violations).toEqual([]);
  await page.context().close();
});
