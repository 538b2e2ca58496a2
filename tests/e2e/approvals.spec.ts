import { type Browser, expect, type Page, test } from '@playwright/test';
import { testAgent } from './approvals-agent';
import {
  activateUser,
  BASE_URL,
  E2E_ADMIN,
  initialPasswordFor,
  registerHost,
  SCREENSHOTS,
  signIn,
  startDemoAgent,
} from './fixtures';

/**
 * The reviewer inbox end to end: a remote host asks for approval, the
 * ticket appears in the open queue without a reload, a reviewer approves it
 * with an edit, and the waiting host's tool receives the edited value. An
 * auditor sees tickets read-only; a reject needs a reason.
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
const REVIEWER = { email: `inbox-rev.${run}@e2e.test`, password: 'reviewer-pass-123' };
const AUDITOR = { email: `inbox-aud.${run}@e2e.test`, password: 'auditor-pass-1234' };
const REDACT = ['$target.memo'];
let apiKey = '';
let hostId = '';

async function asUser(browser: Browser, user: { email: string; password: string }, path: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, user.email, user.password, path);
  await expect(page).not.toHaveURL(/\/sign-in/);
  return page;
}

async function addUser(page: Page, email: string, role: string, password: string) {
  await page.goto('/users');
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(email);
  await form.getByRole('checkbox', { name: new RegExp(role) }).check();
  await form.getByLabel('Initial password').fill(initialPasswordFor(password));
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText(`Added ${email}.`);
  await activateUser(page.context().browser(), email, password);
}

test('setup: an admin adds a reviewer and an auditor, registers a host and issues its key', async ({
  page,
}) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  await expect(page).toHaveURL(/\/users$/);
  await addUser(page, REVIEWER.email, 'reviewer', REVIEWER.password);
  await addUser(page, AUDITOR.email, 'auditor', AUDITOR.password);
  ({ hostId, apiKey } = await registerHost(page, `payments-${run}`, { redact: REDACT }));
});

// A second agent, in this process, whose tickets carry a redacted field and evidence.
let agent: ReturnType<typeof testAgent>;
let emailOutcome: Promise<{ status: string }>;

test('a demo agent ticket appears live; the reviewer approves it with an edit; the tool gets the edited value', async ({
  browser,
}) => {
  // This run's host only: other suites may have tickets of their own.
  const reviewer = await asUser(browser, REVIEWER, `/approvals?host=${hostId}`);
  await expect(reviewer).toHaveURL(/\/approvals\?host=/);
  await expect(reviewer.locator('[data-live="live"]')).toBeVisible();
  // Marks this document: a reload would drop it.
  await reviewer.evaluate(() => {
    (window as unknown as { __noReload: boolean }).__noReload = true;
  });

  const demo = startDemoAgent(apiKey);
  try {
    agent = testAgent({ baseUrl: BASE_URL, apiKey, redact: REDACT });
    emailOutcome = agent.call(`sess-${run}-mail`, 'send_email', {
      to: 'cfo@example.com',
      subject: 'Q3 numbers',
      memo: 'card 4242 4242 4242 4242',
    });

    const row = reviewer.locator('[data-ticket-row]', { hasText: 'wire_transfer' }).first();
    const bar = reviewer.getByTestId('new-tickets');
    // New tickets arrive without a reload: straight in while the queue is
    // empty, announced in the bar once it is not.
    await expect(row.or(bar).first()).toBeVisible({ timeout: 30_000 });
    if (await bar.isVisible()) await bar.click();
    await expect(row).toBeVisible();
    const mailRow = reviewer.locator('[data-ticket-row]', { hasText: 'send_email' });
    await expect(mailRow.or(bar).first()).toBeVisible();
    if (await bar.isVisible()) await bar.click();
    await expect(mailRow).toBeVisible();
    expect(
      await reviewer.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload),
    ).toBe(true);
    await expect(row.getByTestId('countdown')).toBeVisible();
    await expect(reviewer.getByTestId('count-pending')).toHaveText('2');
    await reviewer.screenshot({ path: `${SCREENSHOTS}/approvals-queue.png` });

    // Filters live in the URL, without empty parameters (issue 14).
    await reviewer.getByRole('textbox', { name: 'Agent' }).fill('mail BOT');
    await reviewer.getByRole('button', { name: 'Filter' }).click();
    await expect(reviewer).toHaveURL(/agent=mail\+BOT/);
    expect(new URL(reviewer.url()).search).not.toMatch(/=(&|$)/);
    // The agent filter matches the label the queue shows, in any case: the
    // mail agent's ticket, not the demo agent's.
    await expect(reviewer.locator('[data-ticket-row]')).toHaveCount(1);
    await expect(mailRow).toBeVisible();
    await reviewer.getByRole('textbox', { name: 'Agent' }).fill('');
    // The reason matches by its beginning, as in the audit.
    await reviewer.getByLabel('Reason').fill('amount_over');
    await reviewer.getByRole('button', { name: 'Filter' }).click();
    await expect(reviewer).toHaveURL(/reason=amount_over/);
    await expect(reviewer).not.toHaveURL(/agent=/);
    await expect(reviewer.locator('[data-ticket-row]')).toHaveCount(1);
    await expect(reviewer.locator('[data-live="live"]')).toBeVisible();

    // Keyboard path: j selects the first row, o opens it.
    await reviewer.keyboard.press('j');
    await reviewer.keyboard.press('o');
    await expect(reviewer).toHaveURL(/\/approvals\/[0-9a-f-]{36}$/);
    await expect(reviewer.getByRole('heading', { name: 'wire_transfer', level: 1 })).toBeVisible();
    await expect(reviewer.getByTestId('verdict-message')).toHaveText(
      "Transfers over 10000 need a reviewer's approval.",
    );
    await expect(reviewer.getByTestId('context-identity')).toHaveText(/^sha256:[0-9a-f]{64}$/);
    // The deny set that led here, sent with the request: known while pending (§7.4 "stop").
    const denySet = reviewer.getByTestId('deny-set');
    await expect(denySet).toHaveAttribute('data-source', 'deny_set');
    await expect(denySet).toContainText('(sequential/first_deny), 3 interceptors registered');
    await expect(denySet.locator('tr[data-consulted]')).toContainText('amount_over_threshold');
    await expect(reviewer.getByTestId('fold-truncated')).toContainText(
      '2 later interceptors were skipped (fold_truncated)',
    );
    // The decision is visible without scrolling.
    await expect(reviewer.getByRole('button', { name: /^Approve/ }).first()).toBeInViewport();
    await reviewer.screenshot({ path: `${SCREENSHOTS}/approval-ticket.png` });

    // Approve with edit: one field, a diff, a confirmation.
    await expect(reviewer.locator('[data-keys="ready"]')).toBeVisible();
    await reviewer.keyboard.press('e');
    await reviewer.getByLabel('Field').selectOption('$target.amount');
    await reviewer.getByLabel('New value (JSON)').fill('9000');
    await reviewer.getByRole('button', { name: 'Review change' }).click();
    const diff = reviewer.getByTestId('edit-diff');
    await expect(diff).toContainText('"amount": 25000');
    await expect(diff).toContainText('"amount": 9000');
    await reviewer.screenshot({ path: `${SCREENSHOTS}/approval-edit-diff.png` });
    await reviewer.getByRole('button', { name: 'Confirm: approve with edit' }).click();
    await expect(reviewer.getByTestId('decision-summary')).toContainText('Approved with an edit');
    await expect(reviewer.getByTestId('ticket-status')).toHaveText('approved');
    // Decided: the page offers no decision any more.
    await reviewer.reload();
    await expect(reviewer.getByRole('button', { name: /^Approve/ })).toHaveCount(0);
    // Issue 13: the signed receipt, its claims, and a server-side check against the JWKS.
    const receipt = reviewer.getByTestId('receipt');
    await expect(receipt).toContainText('password');
    await expect(receipt).toContainText('$target.amount (value SHA-256');
    await receipt.getByRole('button', { name: 'Verify' }).click();
    await expect(reviewer.getByTestId('receipt-verification')).toHaveAttribute(
      'data-code',
      'receipt_verified',
    );

    // The waiting host received the transform; the tool ran with the edited value.
    const { code, output } = await demo.done;
    expect(output).toContain('wire_transfer EXECUTED: 9000 EUR to ACME GmbH');
    expect(output).toContain('25000 → 9000');
    expect(output).toContain('delete_file is denied');
    expect(code).toBe(0);
  } finally {
    demo.kill();
  }
});

test('redacted values are marked; an auditor reads only; a late decision sees who won; a reject needs a reason', async ({
  browser,
}) => {
  const auditor = await asUser(browser, AUDITOR, `/approvals?status=pending&host=${hostId}`);
  await auditor.locator('[data-ticket-row]', { hasText: 'send_email' }).getByRole('link').click();
  await expect(auditor.getByRole('heading', { name: 'send_email', level: 1 })).toBeVisible();
  const ticketPath = new URL(auditor.url()).pathname;
  // The memo was redacted by the host before it asked: marked, its content nowhere.
  await expect(auditor.locator('[data-path="target.memo"][data-redacted="true"]')).toBeVisible();
  expect(await auditor.content()).not.toContain('4242 4242');
  // Evidence pointers are text, never links; warnings are shown.
  await expect(auditor.getByText('https://policies.invalid/mail/v1')).toBeVisible();
  await expect(auditor.locator('a[href*="policies.invalid"]')).toHaveCount(0);
  await expect(auditor.getByText('The recipient is outside the company.')).toBeVisible();
  // Read-only: no decision form at all.
  await expect(auditor.getByTestId('read-only')).toBeVisible();
  await expect(auditor.getByRole('button', { name: /Approve|Reject/ })).toHaveCount(0);

  // An admin and the reviewer have the ticket open at the same time.
  const admin = await asUser(browser, E2E_ADMIN, ticketPath);
  const reviewer = await asUser(browser, REVIEWER, ticketPath);
  await expect(reviewer.locator('[data-keys="ready"]')).toBeVisible();
  // Issue 14: a shortcut is not part of a button's name; aria-keyshortcuts says it.
  const approve = reviewer.getByRole('button', { name: 'Approve', exact: true });
  await expect(approve).toHaveAttribute('aria-keyshortcuts', 'a');
  // …and the audit browser is linked only for those who may open it.
  await expect(auditor.getByRole('link', { name: /in the audit browser/ })).toBeVisible();
  await expect(reviewer.getByRole('link', { name: /in the audit browser/ })).toHaveCount(0);
  await reviewer.keyboard.press('e');
  // A redacted field cannot be picked for an edit.
  await expect(reviewer.getByLabel('Field').locator('option[value="$target.memo"]')).toBeDisabled();
  await reviewer.keyboard.press('Escape');

  // The reviewer rejects: the reason is required and comes first.
  await reviewer.getByRole('button', { name: /^Reject/ }).click();
  const reason = reviewer.getByLabel(/Why reject it/);
  await expect(reason).toBeFocused();
  await reason.fill('No outside mail during the audit.');
  // Ctrl+Enter sends it (issue 14).
  await reason.press('Control+Enter');
  await expect(reviewer.getByTestId('decision-summary')).toContainText('Rejected');
  await expect(reviewer.getByTestId('decision-summary')).toContainText(
    'No outside mail during the audit.',
  );

  // The admin's page learns of it live (issue 14): without a reload, the controls
  // give way to the outcome and who decided, and the countdown is gone.
  const summary = admin.getByTestId('decision-summary');
  await expect(summary).toContainText('Rejected');
  await expect(summary).toContainText(REVIEWER.email);
  await expect(admin.getByRole('button', { name: /^(Approve|Reject)/ })).toHaveCount(0);
  await expect(admin.getByTestId('countdown')).toHaveCount(0);

  // The waiting host was told no; the tool never ran.
  // The reviewer's deny, not host_error:approval_unresolved: its receipt verified (`require`).
  expect(await emailOutcome).toMatchObject({ status: 'blocked', reason: 'approval_rejected' });
  expect(agent.received.map((r) => r.tool)).not.toContain('send_email');
});

test('without the live stream the queue falls back to polling and still shows new tickets', async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // The SSE endpoint is unreachable for this browser (a proxy that buffers, say).
  await context.route('**/api/approvals/events', (route) => route.abort());
  const reviewer = await context.newPage();
  await signIn(reviewer, REVIEWER.email, REVIEWER.password, `/approvals?host=${hostId}`);
  await expect(reviewer.locator('[data-live="polling"]')).toBeVisible();
  await expect(reviewer.getByText('Live feed unavailable; checking every 5 s.')).toBeVisible();

  const late = agent.call(`sess-${run}-late`, 'send_email', { to: 'press@example.com' });
  // Every pending ticket of this host is decided, so the new one comes straight in.
  const pending = reviewer.locator('[data-ticket-row][data-status="pending"]');
  await expect(pending).toHaveCount(1, { timeout: 20_000 });
  await expect(reviewer.locator('[data-live="polling"]')).toBeVisible();

  // Decide it so the waiting agent is released: Reject with a reason.
  await pending.getByRole('link').click();
  await expect(reviewer.locator('[data-keys="ready"]')).toBeVisible();
  await reviewer.keyboard.press('r');
  await reviewer.getByLabel(/Why reject it/).fill('Not now.');
  await reviewer.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(reviewer.getByTestId('decision-summary')).toContainText('Rejected');
  expect((await late).status).toBe('blocked');
});
