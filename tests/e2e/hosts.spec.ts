import { type Browser, expect, test } from '@playwright/test';
import { buildContext } from '@checkpoint/agent-hooks';
import {
  activateUser,
  E2E_ADMIN,
  initialPasswordFor,
  SCREENSHOTS,
  signIn,
  signOut,
} from './fixtures';

test.describe.configure({ mode: 'serial' });

/** A host-authenticated request: 404 for an unknown ticket once the key is accepted. */
const PROBE = '/api/v1/approvals/no-such-ticket';

test('an admin registers a host, issues a key that is shown once and works, then revokes it', async ({
  page,
}) => {
  const hostName = `billing-${Date.now().toString(36)}`;
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/hosts');
  await expect(page).toHaveURL(/\/hosts$/);
  await expect(page.getByRole('heading', { name: 'Hosts', level: 1 })).toBeVisible();
  // The built-in host is listed.
  await expect(page.getByRole('table', { name: 'Hosts' })).toContainText('embedded');

  const form = page.getByRole('form', { name: 'Register a host' });
  await form.getByLabel('Name').fill(hostName);
  await form.getByLabel('Description').fill('Pays supplier invoices');
  await form.getByLabel('Default approval timeout').fill('20m');
  await form.getByLabel('Maximum timeout').fill('2h');
  // §5.2: a path not rooted at $target is refused, naming its line; nothing is created.
  await form.getByLabel('Redaction paths').fill('$target.args.iban\n$args.password');
  await form.getByRole('button', { name: 'Register host' }).click();
  await expect(form.getByText(/Line 2 \(\$args\.password\)/)).toBeVisible();
  await expect(page).toHaveURL(/\/hosts$/);
  await expect(form.getByLabel('Name')).toHaveValue(hostName);

  await form.getByLabel('Redaction paths').fill('$target.args.iban\n$target.args.password');
  await form.getByRole('button', { name: 'Register host' }).click();
  // "Host registered" shows once: the address drops ?created=1 at once (issue 14).
  await expect(page.getByText('Host registered.')).toBeVisible();
  await expect(page).toHaveURL(/\/hosts\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: hostName, level: 1 })).toBeVisible();
  const settings = page.getByRole('form', { name: 'Host settings' });
  await expect(settings.getByLabel('Default approval timeout')).toHaveValue('20m');
  await expect(settings.getByLabel('Maximum timeout')).toHaveValue('2h');

  await page.getByLabel('Key name').fill('production');
  await page.getByRole('button', { name: 'Create key' }).click();
  const box = page.getByRole('region', { name: 'New API key' });
  await expect(box).toContainText('only time it is shown');
  const key = await box.getByLabel('API key').inputValue();
  expect(key).toMatch(/^ck_[0-9A-Za-z]{32,}$/);
  const keys = page.getByRole('table', { name: 'API keys' });
  await expect(keys).toContainText('production');
  await expect(keys).toContainText(`${key.slice(0, 10)}…`);
  await expect(keys).toContainText('never');
  await page.screenshot({ path: `${SCREENSHOTS}/host-new-key.png`, fullPage: true });

  // The key authenticates host requests.
  const auth = { Authorization: `Bearer ${key}` };
  expect((await page.request.get(PROBE, { headers: auth })).status()).toBe(404);

  // Issue 14: at pre_tool_call $target already is the tool's arguments, so the
  // paths saved above (`$target.args.…`) match nothing and hide nothing. The
  // ticket says so, with the spelling that would have matched, and so does the host.
  const hostPage = page.url();
  const context = buildContext(
    'pre_tool_call',
    {
      spec: 'agent-hooks/0.1',
      timestamp: new Date().toISOString(),
      sequence: 1,
      agent: { id: 'billing-bot', framework: 'e2e' },
      session: { id: `s-${hostName}` },
    },
    { tool_call: { id: 'c1', name: 'pay_invoice', args: { iban: 'DE89-E2E-IBAN', amount: 10 } } },
  );
  const asked = await page.request.post('/api/v1/approvals', {
    headers: auth,
    data: {
      context_identity: null,
      interception_point: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'needs_review', approval: {} },
      context,
    },
  });
  expect(asked.status()).toBe(201);
  await page.goto(`/approvals/${(await asked.json()).id}`);
  const notice = page.getByTestId('redaction-miss');
  await expect(notice).toContainText('$target.args.iban');
  await expect(notice).toContainText('matched nothing in this request');
  await expect(notice).toContainText('Did you mean $target.iban?');
  await page.goto(hostPage);
  const warning = page.getByTestId('redaction-warnings');
  await expect(warning).toContainText('2 redaction paths hide nothing');
  await expect(warning).toContainText('At pre_tool_call, write $target.iban.');
  // Issue 14: at the deadline the ticket page disables its controls without a
  // reload. The browser's clock is moved past the deadline while the server's
  // ticket is still pending, so the page alone must notice.
  const brief = await page.request.post('/api/v1/approvals', {
    headers: auth,
    data: {
      context_identity: null,
      interception_point: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'needs_review', approval: {} },
      context: { ...context, sequence: 2 },
      timeout_ms: 120_000,
    },
  });
  expect(brief.status()).toBe(201);
  // A browser context of its own (the clock is per context), signed in as the same admin.
  const lateContext = await (page.context().browser() as Browser).newContext({
    storageState: await page.context().storageState(),
  });
  const late = await lateContext.newPage();
  await late.clock.install();
  await late.goto(`/approvals/${(await brief.json()).id}`);
  await expect(late.getByRole('button', { name: /^Approve/ }).first()).toBeEnabled();
  await late.clock.fastForward('02:05');
  await expect(late.getByTestId('deadline-passed')).toBeVisible();
  for (const name of [/^Approve$/, /^Approve with edit/, /^Reject/])
    await expect(late.getByRole('button', { name }).first()).toBeDisabled();
  await expect(late.getByTestId('countdown')).toHaveText(/deadline passed/);
  await lateContext.close();
  await page.goto(hostPage);

  // The form's own example is a path that matches a tool call's arguments.
  await expect(settings.getByLabel('Redaction paths')).toHaveAttribute(
    'placeholder',
    /^\$target\.password\n/,
  );

  // Shown once: after a reload only the prefix remains, and the use is recorded.
  await page.reload();
  await expect(page.getByRole('region', { name: 'New API key' })).toHaveCount(0);
  expect(await page.content()).not.toContain(key);
  await expect(keys).toContainText('just now');

  // Revoking asks first; Cancel changes nothing.
  await keys.getByRole('button', { name: 'Revoke production' }).click();
  await keys.getByRole('button', { name: 'Cancel' }).click();
  expect((await page.request.get(PROBE, { headers: auth })).status()).toBe(404);
  await keys.getByRole('button', { name: 'Revoke production' }).click();
  await keys.getByRole('button', { name: 'Revoke key' }).click();
  await expect(keys).toContainText('revoked');
  await expect(keys.getByRole('button', { name: 'Revoke production' })).toHaveCount(0);

  const refused = await page.request.get(PROBE, { headers: auth });
  expect(refused.status()).toBe(401);
  expect(refused.headers()['www-authenticate']).toMatch(/^Bearer/);
  expect((await refused.json()).error.code).toBe('unauthenticated');

  // Every change is in the host's history, without the key.
  const history = page.getByRole('table', { name: `Recent changes to ${hostName}` });
  await expect(history).toContainText('api_key.revoked');
  await expect(history).toContainText('api_key.issued');
  await expect(history).toContainText('host.created');
  await page.screenshot({ path: `${SCREENSHOTS}/host-revoked-key.png`, fullPage: true });
});

test('the built-in host keeps its name and cannot be archived', async ({ page }) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/hosts');
  await page.getByRole('link', { name: 'Manage embedded' }).click();
  await expect(page.getByRole('heading', { name: 'embedded', level: 1 })).toBeVisible();
  const settings = page.getByRole('form', { name: 'Host settings' });
  await expect(settings.getByText('The built-in host keeps its name.')).toBeVisible();
  await expect(settings.getByRole('textbox', { name: 'Name' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Archive/ })).toHaveCount(0);
});

test('a reviewer cannot reach /hosts or a host page (server-enforced)', async ({ page }) => {
  const reviewer = {
    email: `hosts-rev.${Date.now().toString(36)}@e2e.test`,
    pw: 'reviewer-pass-123',
  };
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(reviewer.email);
  await form.getByRole('checkbox', { name: /reviewer/ }).check();
  await form.getByLabel('Initial password').fill(initialPasswordFor(reviewer.pw));
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText(`Added ${reviewer.email}.`);
  await activateUser(page.context().browser(), reviewer.email, reviewer.pw);
  await page.goto('/hosts');
  await page.getByRole('link', { name: 'Manage embedded' }).click();
  const hostPath = new URL(page.url()).pathname;
  await signOut(page);

  await signIn(page, reviewer.email, reviewer.pw);
  await expect(page).toHaveURL(/\/$/);
  for (const path of ['/hosts', hostPath]) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: "You don't have access" })).toBeVisible();
    await expect(page.getByRole('table')).toHaveCount(0);
    await expect(page.getByRole('form', { name: 'Host settings' })).toHaveCount(0);
  }
  expect((await page.request.get('/forbidden?from=%2Fhosts')).status()).toBe(403);
});
