import { expect, test } from '@playwright/test';
import { buildContext, jcsSha256 } from '@checkpoint/agent-hooks';
import { BASE_URL, E2E_ADMIN, registerHost, signIn } from './fixtures';

/**
 * Item 6: the reviewer sees every member the identity covers (§9, §10.2),
 * including ones the JS object model treats specially. A member named
 * "__proto__" used to vanish between intake and the ticket page.
 */

const run = Date.now().toString(36);
const ARGS_TEXT =
  '{"to":"ACME GmbH","amount":25000,"__proto__":{"isAdmin":true},"constructor":"ctor-value"}';

test('the ticket page shows a "__proto__" member of the context', async ({ page }) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).not.toHaveURL(/\/sign-in/);
  const { apiKey } = await registerHost(page, `fidelity-${run}`);

  const context = buildContext(
    'pre_tool_call',
    {
      spec: 'agent-hooks/0.1',
      timestamp: new Date().toISOString(),
      sequence: 1,
      agent: { id: 'proto-bot', framework: 'e2e' },
      session: { id: `sess-${run}` },
    },
    { tool_call: { id: `call-${run}`, name: 'grant_role', args: JSON.parse(ARGS_TEXT) } },
  );
  const body = {
    context_identity: jcsSha256.compute(context),
    interception_point: 'pre_tool_call',
    verdict: { decision: 'deny', reason: 'needs_review', approval: {} },
    context,
  };
  // JSON.stringify keeps the own "__proto__" member: the wire carries it.
  const text = JSON.stringify(body);
  expect(text).toContain('"__proto__":{"isAdmin":true}');
  const res = await fetch(`${BASE_URL}/api/v1/approvals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: text,
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };

  await page.goto(`/approvals/${id}`);
  const member = page.locator('[data-path="target.__proto__"]');
  await expect(member).toBeVisible();
  await expect(member).toContainText('"__proto__"');
  await expect(page.locator('[data-path="target.__proto__.isAdmin"]')).toContainText('true');
  // The target is shown once (issue 14): its alias in the full context says so…
  await expect(page.locator('[data-path="tool_call.args"][data-elided="true"]')).toBeAttached();
  // …and the raw JSON behind "Download JSON" is the exact stored text, member and all.
  const raw = await page.request.get(`/api/approvals/${id}/context?download=1`);
  expect(raw.headers()['content-disposition']).toContain('attachment');
  const stored = JSON.parse(await raw.text());
  expect(Object.hasOwn(stored.tool_call.args, '__proto__')).toBe(true);
  expect(Object.getOwnPropertyDescriptor(stored.tool_call.args, '__proto__')?.value).toEqual({
    isAdmin: true,
  });
  await expect(page.locator('[data-path="target.constructor"]')).toContainText('ctor-value');
});
