import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { buildContext, jcsSha256 } from '@checkpoint/agent-hooks';
import { verifyWebhook } from '@/lib/server/webhooks/signing';
import { E2E_ADMIN, registerHost, signIn } from './fixtures';

/**
 * Host webhooks end to end (issue 6): an admin registers a resolver (and sees
 * its self-test, case by case) and a callback (and copies its secret, shown
 * once); a remote host's request is then decided by the resolver, the
 * callback arrives signed with that secret, and the delivery log shows both.
 * The services run in this process on loopback (the server runs with
 * WEBHOOKS_ALLOW_HTTP_LOOPBACK).
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
type Got = { headers: IncomingHttpHeaders; body: string };
const callbacks: Got[] = [];
const servers: Server[] = [];
let hostId = '';
let apiKey = '';
let secret = '';

async function listen(handler: (got: Got) => { status: number; body?: string }): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const a = handler({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A policy service: approves everything, echoing the identity (and answers self-test cases as asked). */
function resolver(got: Got) {
  const req = JSON.parse(got.body);
  const asked = got.headers['webhook-test-case'];
  const outcome =
    asked === 'reject'
      ? 'reject'
      : asked === 'unresolved' || asked === 'identity_echo'
        ? 'unresolved'
        : 'approve';
  const verdict =
    outcome === 'approve'
      ? { decision: 'allow' }
      : outcome === 'reject'
        ? { decision: 'deny', reason: 'policy:no', message: 'No.' }
        : undefined;
  return {
    status: 200,
    body: JSON.stringify({ outcome, context_identity: req.context_identity, verdict }),
  };
}

test.afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

test('register a resolver and a callback, see the self-test and the empty delivery log', async ({
  page,
}) => {
  const resolverUrl = await listen(resolver);
  const callbackUrl = await listen((got) => {
    callbacks.push(got);
    return { status: 204 };
  });

  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/hosts');
  await expect(page).toHaveURL(/\/hosts$/);
  ({ hostId, apiKey } = await registerHost(page, `hooks-${run}`));

  await page.getByRole('link', { name: /Webhooks \(callback, resolver, delivery log\)/ }).click();
  await expect(page).toHaveURL(`/hosts/${hostId}/webhooks`);

  // A refused URL first: the SSRF guard answers inline.
  const resolverForm = page.getByRole('form', { name: 'resolver webhook' });
  await resolverForm.getByLabel('Resolver URL').fill('https://169.254.169.254/latest');
  await resolverForm.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByText(/resolves to a metadata address/).first()).toBeVisible();

  await resolverForm.getByLabel('Resolver URL').fill(`${resolverUrl}/resolve`);
  await resolverForm.getByRole('button', { name: 'Register' }).click();
  const result = page.getByTestId('self-test-result');
  await expect(result).toHaveAttribute('data-ok', 'true');
  for (const c of ['approve', 'reject', 'unresolved', 'identity_echo']) {
    await expect(result.locator(`[data-case="${c}"]`)).toHaveAttribute('data-ok', 'true');
  }
  await expect(page.getByTestId('resolver-status')).toHaveText('Enabled');
  await expect(page.getByTestId('resolver-panel').getByTestId('new-webhook-secret')).toHaveValue(
    /^whsec_/,
  );

  const callbackForm = page.getByRole('form', { name: 'callback webhook' });
  await callbackForm.getByLabel('Callback URL').fill(`${callbackUrl}/hook`);
  await callbackForm.getByRole('button', { name: 'Register' }).click();
  // Each panel shows its own secret once; the callback's is the one to verify with.
  secret = await page.getByTestId('callback-panel').getByTestId('new-webhook-secret').inputValue();
  expect(secret).toMatch(/^whsec_/);
  await page.reload();
  // Shown once: not after a reload.
  await expect(page.getByTestId('new-webhook-secret')).toHaveCount(0);
  await expect(page.getByTestId('callback-status')).toHaveText('Enabled');

  await page.getByRole('link', { name: 'Delivery log →' }).click();
  await expect(page.getByText('No deliveries yet')).toBeVisible();
});

test('a remote request is decided by the resolver; the signed callback and both deliveries show in the log', async ({
  page,
  request,
}) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, `/hosts/${hostId}/webhooks/deliveries`);
  // Signed in and back on the log before anything reloads the page.
  await expect(page).toHaveURL(/\/webhooks\/deliveries$/);
  // A remote host asks; the resolver approves; the callback arrives signed.
  const ctx = buildContext(
    'pre_tool_call',
    {
      spec: 'agent-hooks/0.1',
      timestamp: new Date().toISOString(),
      sequence: 1,
      agent: { id: 'hook-bot', framework: 'e2e' },
      session: { id: `s-${run}` },
    },
    { tool_call: { id: 'c1', name: 'wire_transfer', args: { amount: 20000 } } },
  );
  const res = await request.post('/api/v1/approvals', {
    headers: { authorization: `Bearer ${apiKey}` },
    data: {
      context_identity: jcsSha256.compute(ctx),
      interception_point: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'amount_over_threshold', approval: {} },
      context: ctx,
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  const ticketId = (await res.json()).id as string;
  await expect.poll(() => callbacks.length, { timeout: 20_000 }).toBe(1);
  const cb = callbacks[0];
  expect(verifyWebhook(secret, cb.headers, cb.body)).toEqual({ ok: true });
  expect(JSON.parse(cb.body).data).toMatchObject({ ticket_id: ticketId, status: 'approved' });

  await page.reload();
  const rows = page.getByTestId('delivery-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'resolver' })).toHaveAttribute('data-status', 'delivered');
  const cbRow = rows.filter({ hasText: 'callback' });
  await expect(cbRow).toHaveAttribute('data-status', 'delivered');
  await expect(cbRow).toContainText('HTTP 204');
  // Manual redelivery: the same webhook-id arrives again.
  await cbRow.getByRole('button', { name: 'Redeliver' }).click();
  await expect.poll(() => callbacks.length, { timeout: 20_000 }).toBe(2);
  expect(callbacks[1].headers['webhook-id']).toBe(cb.headers['webhook-id']);
});
