import { expect, test } from '@playwright/test';
import { testAgent } from './approvals-agent';
import { BASE_URL, E2E_ADMIN, registerHost, signIn } from './fixtures';

/**
 * Stored XSS regression (issue 11, "keep them holding"): everything a host
 * sends is shown as text. Markup in tool arguments reaches
 * the queue and the ticket page literally, and no
 * script it carries ever runs in a reviewer's browser.
 */

const run = Date.now().toString(36);
const MARKUP = {
  to: '<img src=x onerror="window.__xss=1;alert(1)">',
  subject: '<script>window.__xss=2;alert(2)</script>',
  memo: '"><svg onload="window.__xss=3;alert(3)">',
  link: 'javascript:alert(4)',
};

test('markup from a host is shown as text on the queue and the ticket page, never run', async ({
  page,
}) => {
  const dialogs: string[] = [];
  page.on('dialog', async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).not.toHaveURL(/\/sign-in/);
  const { hostId, apiKey } = await registerHost(page, `hostile-${run}`);

  const sessionId = `sess-${run}-<b>bold</b>`;
  const agent = testAgent({ baseUrl: BASE_URL, apiKey, redact: [] });
  const outcome = agent.call(sessionId, 'send_email', MARKUP);

  // Should the agent give up before its ticket shows, say why (seen once in
  // a full CI run: no ticket for this host within 30 s, cause unknown).
  let agentEnded: string | undefined;
  outcome.then(
    (o) => {
      agentEnded = `the agent finished first: ${JSON.stringify(o)}`;
    },
    (err) => {
      agentEnded = `the agent failed: ${err instanceof Error ? err.stack : String(err)}`;
    },
  );
  await page.goto(`/approvals?host=${hostId}`);
  const row = page.locator('[data-ticket-row]', { hasText: 'send_email' }).first();
  await expect
    .poll(
      async () => {
        if (agentEnded) throw new Error(agentEnded);
        return row.isVisible();
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  await row.getByRole('link').first().click();
  await expect(page).toHaveURL(/\/approvals\/[0-9a-f-]{36}$/);

  // Each value appears as its literal text, and no element was made from it.
  const body = page.locator('main');
  // The context viewer shows JSON strings, quotes escaped.
  for (const text of Object.values(MARKUP)) await expect(body).toContainText(JSON.stringify(text));
  await expect(page.locator('main img[src="x"], main svg[onload], main script')).toHaveCount(0);
  await expect(page.locator('a[href^="javascript:"]')).toHaveCount(0);

  await page
    .getByRole('button', { name: /^Approve/ })
    .first()
    .click();
  await expect(page.getByTestId('ticket-status')).toHaveText('approved');
  const result = await outcome;
  expect(JSON.stringify(result)).not.toContain('denied');

  expect(dialogs).toEqual([]);
  expect(
    await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
  ).toBeUndefined();
});
