import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import {
  activateUser,
  E2E_ADMIN,
  initialPasswordFor,
  registerHost,
  SCREENSHOTS,
  signIn,
  signOut,
  startDemoAgent,
} from './fixtures';

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36);
let hostName = '';
let sessionId = '';

test("the demo agent's session: search, timeline with chain check, approval link, export", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/hosts');
  await expect(page).toHaveURL(/\/hosts$/);
  hostName = `audit-agent-${run}`;
  const { hostId, apiKey: key } = await registerHost(page, hostName, { keyName: 'audit-e2e' });

  // The demo agent runs; its transfer waits for a reviewer, who approves it here.
  const demo = startDemoAgent(key, ['--wait', '60']);
  let stored = 0;
  let ticketId = '';
  try {
    await expect
      .poll(() => /\/approvals\/([0-9a-f-]{36})/.exec(demo.output())?.[1] ?? demo.output(), {
        timeout: 60_000,
      })
      .toMatch(/^[0-9a-f-]{36}$/);
    ticketId = /\/approvals\/([0-9a-f-]{36})/.exec(demo.output())?.[1] as string;
    await page.goto(`/approvals/${ticketId}`);
    await page
      .locator('form[aria-label="Approve"]')
      .getByRole('button', { name: /^Approve/ })
      .click();
    const { code, output } = await demo.done;
    expect(output).toContain('wire_transfer EXECUTED: 25000 EUR');
    expect(code).toBe(0);
    stored = Number(/records\s+(\d+) stored in the audit store\n/.exec(output)?.[1]);
    expect(stored).toBeGreaterThanOrEqual(6);
  } finally {
    demo.kill();
  }

  // The search finds the host's records, with a count.
  await page.goto(`/audit?host=${hostId}`);
  await expect(page.getByRole('heading', { name: 'Audit', level: 1 })).toBeVisible();
  await expect(page.getByTestId('result-count')).toHaveText(`${stored} records`);
  const table = page.getByRole('table', { name: 'Interception records' });
  // The transfer's liftable deny was lifted by the approval (§7.6): allowed, resolved_by approval.
  const lifted = table.getByRole('row').filter({ hasText: /approval/ });
  await expect(lifted).toHaveCount(1);
  await expect(lifted).toContainText('pre_tool_call');
  await expect(lifted).toContainText('allow');
  await expect(table.getByRole('row').filter({ hasText: 'destructive_tool' })).toContainText(
    'deny',
  );
  await expect(table.getByRole('row').filter({ hasText: 'secret_redacted' })).toContainText(
    'transform',
  );
  await page.screenshot({ path: `${SCREENSHOTS}/audit-search.png` });
  // Keyboard path: "/" jumps to the session id field.
  await page.keyboard.press('/');
  await expect(page.getByLabel('Session id (exact)')).toBeFocused();

  // The timeline: ordered, verified against the log, the approval linked to its ticket and reviewer.
  const sessionLink = table.getByRole('row').nth(1).getByRole('link', { name: /demo-/ });
  sessionId = (await sessionLink.textContent()) ?? '';
  await sessionLink.click();
  await expect(page).toHaveURL(new RegExp(`/audit/sessions/.+\\?host=${hostId}$`));
  await expect(page.getByRole('heading', { name: `Session ${sessionId}` })).toBeVisible();
  // Verified once the appender has logged the last records (about a second after ingest).
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('chain-status')).toHaveAttribute('data-state', 'ok', {
      timeout: 1_000,
    });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId('chain-status')).toContainText(
    `Verified against signed tree head #`,
  );
  await expect(page.getByTestId('chain-status')).toContainText(`${stored} records, all in the log`);
  const entries = page.getByTestId('timeline-entry');
  const sequences = await entries.evaluateAll((els) =>
    els.map((e) => Number(e.getAttribute('data-sequence'))),
  );
  expect(sequences).toHaveLength(stored);
  expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  await expect(page.getByTestId('gap')).toHaveCount(0);
  const approved = entries.filter({ hasText: 'resolved by approval' });
  await expect(approved).toHaveCount(1);
  await expect(approved).toContainText('pre_tool_call');
  const reviewerName = ((await page.locator('a[title="Your profile"]').textContent()) ?? '').trim();
  await expect(approved).toContainText(`decided by ${reviewerName}`);
  await expect(entries.filter({ hasText: 'destructive_tool' })).toContainText('deny');
  await expect(entries.filter({ hasText: 'secret_redacted' })).toContainText('transformed');
  await page.screenshot({ path: `${SCREENSHOTS}/audit-timeline.png` });
  mkdirSync('docs/screenshots', { recursive: true });
  copyFileSync(`${SCREENSHOTS}/audit-timeline.png`, 'docs/screenshots/audit-timeline.png');
  const timelineUrl = page.url();

  // The record detail shows the stored JSON and links back.
  await approved.getByRole('link', { name: 'record' }).click();
  await expect(page.getByTestId('record-json')).toContainText('"resolved_by": "approval"');
  await page.getByRole('link', { name: '← Back to the timeline' }).click();
  await expect(page).toHaveURL(timelineUrl);

  // Following the approval link opens the ticket.
  await page
    .getByTestId('timeline-entry')
    .filter({ hasText: 'resolved by approval' })
    .getByRole('link', { name: /approval ticket/ })
    .click();
  await expect(page).toHaveURL(new RegExp(`/approvals/${ticketId}$`));
  await page.goBack();

  // Exporting the session: a JSONL file with every record, in sequence order.
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export session JSONL' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(
    `session-${sessionId.replace(/[^A-Za-z0-9._-]+/g, '_')}.jsonl`,
  );
  await expect(page.getByTestId('export-done')).toContainText(`(${sequences.length} rows)`);
  // A signed export (docs/verifying.md): a header with the tree head, one
  // line per record carrying the leaf the log hashed, and an end line.
  const all = readFileSync(await file.path(), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(all[0]).toMatchObject({ format: 'checkpoint-audit-export', version: 1 });
  expect(all.at(-1)).toEqual({ kind: 'end', records: sequences.length, decisions: 0 });
  const lines = all.slice(1, -1);
  expect(lines.map((l) => l.leaf.record.sequence)).toEqual(sequences);
  expect(lines.every((l) => l.host === hostName && l.leaf.record.session_id === sessionId)).toBe(
    true,
  );
  const liftedLine = lines.find((l) => l.leaf.record.resolved_by === 'approval');
  expect(liftedLine.leaf.record).toMatchObject({
    interception_point: 'pre_tool_call',
    verdict: { decision: 'allow' },
  });
  // Payload-free (§10.3): the transform's value (the scrubbed mail) and the secret are dropped.
  const text = JSON.stringify(lines);
  expect(text).not.toContain('sk_live_');
  expect(text).not.toContain('[secret removed]');

  const csv = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Export session CSV' }).click();
  const csvText = readFileSync(await (await csv).path(), 'utf8');
  expect(csvText.split('\r\n')[0]).toMatch(/^id,received_at,host,host_id,session_id,sequence,/);
  expect(csvText.trimEnd().split('\r\n')).toHaveLength(sequences.length + 1);
});

test('the overview charts the traffic, with table fallbacks', async ({ page }) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/audit/overview');
  await expect(page).toHaveURL(/\/audit\/overview$/);
  await expect(page.getByRole('heading', { name: 'Audit', level: 1 })).toBeVisible();
  for (const id of ['emissions', 'denies', 'host-errors', 'fold-truncated', 'approvals']) {
    await expect(page.getByTestId(`chart-${id}`)).toBeVisible();
  }
  await expect(page.getByRole('img', { name: /Emissions per hour/ })).toBeVisible();
  await page.getByRole('link', { name: '7 days' }).click();
  await expect(page).toHaveURL(/range=7d$/);
  await expect(page.getByRole('img', { name: /Emissions per day/ })).toBeVisible();
});

test('a reviewer without the auditor role is refused, in the page and the API', async ({
  page,
}) => {
  const reviewer = { email: `audit-rev.${run}@e2e.test`, pw: 'reviewer-pass-123' };
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/users');
  await expect(page).toHaveURL(/\/users$/);
  const form = page.getByRole('form', { name: 'Add a user' });
  await form.getByLabel('Email').fill(reviewer.email);
  await form.getByRole('checkbox', { name: /reviewer/ }).check();
  await form.getByLabel('Initial password').fill(initialPasswordFor(reviewer.pw));
  await form.getByRole('button', { name: 'Add user' }).click();
  await expect(form.getByRole('status')).toHaveText(`Added ${reviewer.email}.`);
  await activateUser(page.context().browser(), reviewer.email, reviewer.pw);
  await signOut(page);

  await signIn(page, reviewer.email, reviewer.pw);
  await expect(page).toHaveURL(/\/$/);
  for (const target of ['/audit', `/audit/sessions/${sessionId || 'x'}`, '/audit/overview']) {
    await page.goto(target);
    await expect(page.getByRole('heading', { name: "You don't have access" })).toBeVisible();
    await expect(page.getByRole('table')).toHaveCount(0);
  }
  const res = await page.request.get('/api/audit/export?format=jsonl');
  expect(res.status()).toBe(403);
  expect((await res.json()).error.code).toBe('forbidden');
});
