import { type Browser, expect, type Page, test } from '@playwright/test';
import { testAgent } from './approvals-agent';
import { BASE_URL, E2E_ADMIN, SCREENSHOTS, signIn } from './fixtures';

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
  await form.getByLabel('Initial password').fill(password);
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText(`Added ${email}.`);
}

test('setup: an admin adds a reviewer and an auditor, registers a host and issues its key', async ({
  page,
}) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  await expect(page).toHaveURL(/\/users$/);
  await addUser(page, REVIEWER.email, 'reviewer', REVIEWER.password);
  await addUser(page, AUDITOR.email, 'auditor', AUDITOR.password);
  await page.goto('/hosts');
  const form = page.getByRole('form', { name: 'Register a host' });
  await form.getByLabel('Name').fill(`payments-${run}`);
  await form.getByLabel('Redaction paths').fill(REDACT.join('\n'));
  await form.getByRole('button', { name: 'Register host' }).click();
  await expect(page).toHaveURL(/\/hosts\/[0-9a-f-]{36}/);
  await page.getByLabel('Key name').fill('e2e');
  await page.getByRole('button', { name: 'Create key' }).click();
  apiKey = await page
    .getByRole('region', { name: 'New API key' })
    .getByLabel('API key')
    .inputValue();
  expect(apiKey).toMatch(/^ck_/);
});

test('a ticket appears live; the reviewer approves it with an edit; the tool gets the edited value', async ({
  browser,
}) => {
  const reviewer = await asUser(browser, REVIEWER, '/approvals');
  await expect(reviewer).toHaveURL(/\/approvals$/);
  await expect(reviewer.locator('[data-live="live"]')).toBeVisible();
  // Marks this document: a reload would drop it.
  await reviewer.evaluate(() => {
    (window as unknown as { __noReload: boolean }).__noReload = true;
  });

  const agent = testAgent({ baseUrl: BASE_URL, apiKey, redact: REDACT });
  const transfer = agent.call(`sess-${run}-1`, 'wire_transfer', {
    amount: 25_000,
    currency: 'EUR',
    to: 'ACME GmbH',
    memo: 'invoice 4711, card 4242 4242 4242 4242',
  });
  const email = agent.call(`sess-${run}-2`, 'send_email', {
    to: 'cfo@example.com',
    subject: 'Q3 numbers',
  });

  const row = reviewer.locator('[data-ticket-row]', { hasText: 'wire_transfer' }).first();
  const bar = reviewer.getByTestId('new-tickets');
  // New tickets arrive without a reload: either straight in (the queue was
  // calm) or announced in the bar.
  await expect(row.or(bar).first()).toBeVisible({ timeout: 20_000 });
  if (await bar.isVisible()) await bar.click();
  await expect(row).toBeVisible();
  await expect(reviewer.locator('[data-ticket-row]', { hasText: 'send_email' })).toBeVisible();
  expect(
    await reviewer.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload),
  ).toBe(true);
  await expect(row.getByTestId('countdown')).toBeVisible();
  await expect(reviewer.getByTestId('count-pending')).not.toHaveText('0');
  await reviewer.screenshot({ path: `${SCREENSHOTS}/approvals-queue.png` });

  // Filters live in the URL.
  await reviewer.getByLabel('Reason').fill('large_transfer');
  await reviewer.getByRole('button', { name: 'Filter' }).click();
  await expect(reviewer).toHaveURL(/reason=large_transfer/);
  await expect(reviewer.locator('[data-ticket-row]')).toHaveCount(1);

  // Keyboard path: j selects the first row, o opens it.
  await reviewer.keyboard.press('j');
  await reviewer.keyboard.press('o');
  await expect(reviewer).toHaveURL(/\/approvals\/[0-9a-f-]{36}$/);
  const ticketUrl = reviewer.url();
  await expect(reviewer.getByRole('heading', { name: 'wire_transfer', level: 1 })).toBeVisible();
  await expect(reviewer.getByTestId('verdict-message')).toHaveText(
    'Transfers over 10,000 EUR need a human.',
  );
  await expect(reviewer.getByText('First transfer to this IBAN.')).toBeVisible();
  // Evidence pointers are text, never links.
  await expect(reviewer.getByText('https://policies.invalid/limits/v3')).toBeVisible();
  await expect(reviewer.locator('a[href*="policies.invalid"]')).toHaveCount(0);
  // The memo was redacted before storage: marked, and its content appears nowhere.
  await expect(reviewer.locator('[data-path="target.memo"][data-redacted="true"]')).toBeVisible();
  expect(await reviewer.content()).not.toContain('4242 4242');
  await expect(reviewer.getByTestId('context-identity')).toHaveText(/^sha256:[0-9a-f]{64}$/);
  // The decision is visible without scrolling.
  await expect(reviewer.getByRole('button', { name: /^Approve/ }).first()).toBeInViewport();
  await reviewer.screenshot({ path: `${SCREENSHOTS}/approval-ticket.png` });

  // Approve with edit: one field, a diff, a confirmation.
  await reviewer.keyboard.press('e');
  const field = reviewer.getByLabel('Field');
  await expect(field.locator('option[value="$target.memo"]')).toBeDisabled();
  await field.selectOption('$target.amount');
  await reviewer.getByLabel('New value (JSON)').fill('9000');
  await reviewer.getByRole('button', { name: 'Review change' }).click();
  const diff = reviewer.getByTestId('edit-diff');
  await expect(diff).toContainText('"amount": 25000');
  await expect(diff).toContainText('"amount": 9000');
  await reviewer.screenshot({ path: `${SCREENSHOTS}/approval-edit-diff.png` });
  await reviewer.getByRole('button', { name: 'Confirm: approve with edit' }).click();
  await expect(reviewer.getByTestId('decision-summary')).toContainText('Approved with an edit');
  await expect(reviewer.getByTestId('ticket-status')).toHaveText('approved');

  // The waiting host received the transform; the tool ran with the edited value.
  const outcome = await transfer;
  expect(outcome.status).toBe('completed');
  expect(agent.received).toContainEqual({
    tool: 'wire_transfer',
    args: expect.objectContaining({ amount: 9000, to: 'ACME GmbH' }),
  });

  // A second decision on the same ticket is refused: the page now shows it decided, without forms.
  await reviewer.goto(ticketUrl);
  await expect(reviewer.getByRole('button', { name: /^Approve/ })).toHaveCount(0);

  // The auditor sees the pending email ticket read-only: no decision forms at all.
  const auditor = await asUser(browser, AUDITOR, '/approvals?status=pending');
  await auditor.locator('[data-ticket-row]', { hasText: 'send_email' }).getByRole('link').click();
  await expect(auditor.getByRole('heading', { name: 'send_email', level: 1 })).toBeVisible();
  await expect(auditor.getByTestId('read-only')).toBeVisible();
  await expect(auditor.getByRole('button', { name: /Approve|Reject/ })).toHaveCount(0);
  await expect(auditor.locator('form[aria-label="Approve"]')).toHaveCount(0);

  // The reviewer rejects it: a reason is required, and the host is told no.
  await reviewer.goto('/approvals?status=pending&reason=external_recipient');
  await reviewer.locator('[data-ticket-row]').first().getByRole('link').click();
  await expect(reviewer.getByRole('heading', { name: 'send_email', level: 1 })).toBeVisible();
  await reviewer.keyboard.press('r');
  const reason = reviewer.getByLabel(/Why reject it/);
  await expect(reason).toBeFocused();
  await reason.fill('No outside mail during the audit.');
  await reviewer.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(reviewer.getByTestId('decision-summary')).toContainText('Rejected');
  const refused = await email;
  expect(refused.status).toBe('blocked');
  expect(agent.received.map((r) => r.tool)).not.toContain('send_email');
});
