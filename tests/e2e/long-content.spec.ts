import { expect, test } from '@playwright/test';
import { buildContext } from '@checkpoint/agent-hooks';
import { BASE_URL, E2E_ADMIN, registerHost, signIn } from './fixtures';

/**
 * Issue 14, bug 7: long content on the ticket page. A 50 KB string is
 * collapsed behind "show all", a 20,000-item array is paged, the target is
 * shown once (its alias in the full context is a note), the context can be
 * searched, copied and downloaded as the exact stored JSON.
 */

const run = Date.now().toString(36);
const LONG = `BEGIN-${'x'.repeat(50_000)}-END`;
const ITEMS = Array.from({ length: 20_000 }, (_, i) => ({ line: i, sku: `SKU-${i}` }));

test('a ticket with a 50 KB string and a 20,000-item array stays usable', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  const page = await context.newPage();
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).not.toHaveURL(/\/sign-in/);
  const { apiKey } = await registerHost(page, `long-${run}`);
  const ctx = buildContext(
    'pre_tool_call',
    {
      spec: 'agent-hooks/0.1',
      timestamp: new Date().toISOString(),
      sequence: 1,
      agent: { id: 'bulk-bot', framework: 'e2e' },
      session: { id: `sess-${run}` },
    },
    {
      tool_call: {
        id: `call-${run}`,
        name: 'import_orders',
        args: { note: LONG, items: ITEMS, unique_marker: 'needle-7731' },
      },
    },
  );
  const res = await fetch(`${BASE_URL}/api/v1/approvals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      context_identity: null,
      interception_point: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'bulk_import', approval: {} },
      context: ctx,
    }),
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };

  await page.goto(`/approvals/${id}`);
  await expect(page).toHaveTitle(/import_orders · long-/);
  // The page stays a page: the string's beginning, not 50 KB of it.
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeLessThan(8000);
  const note = page.locator('[data-path="target.note"]');
  await expect(note).toContainText('BEGIN-xxxx');
  await expect(note).not.toContainText('-END');
  await note.getByText('show all 50,010 characters').click();
  // The page holds the first 20,000 characters; the download has the rest.
  await expect(note).toContainText('30,010 more characters: download the JSON');

  // The array is paged: the first 100 items, then the next 100 by a link.
  const pager = page.locator('[data-pager="target.items"]');
  await expect(pager).toContainText('items 0–99 of 20000');
  await expect(page.locator('[data-path="target.items[99]"]')).toBeAttached();
  await expect(page.locator('[data-path="target.items[100]"]')).toHaveCount(0);
  await pager.getByRole('link', { name: 'next 100 →' }).click();
  await expect(page.locator('[data-pager="target.items"]')).toContainText('items 100–199 of 20000');
  await expect(page.locator('[data-path="target.items[150]"]')).toContainText('SKU-150');
  await expect(page.locator('[data-path="target.items[99]"]')).toHaveCount(0);

  // The target is shown once: its alias in the full context is a note.
  await expect(page.locator('[data-path="tool_call.args"][data-elided="true"]')).toBeAttached();
  await expect(page.locator('[data-path="tool_call.args.items"]')).toHaveCount(0);

  // Search inside the context marks what matches.
  await page.getByRole('searchbox', { name: 'Search the context' }).fill('needle-7731');
  await expect(page.getByTestId('context-matches')).toHaveText('1 match');
  await expect(page.locator('[data-path="target.unique_marker"][data-match]')).toBeVisible();

  // Copy and download give the exact stored JSON, all 20,000 items.
  await page.getByRole('button', { name: 'Copy JSON' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  expect(copied.target.items).toHaveLength(20_000);
  expect(copied.target.note).toBe(LONG);
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download JSON' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`ticket-${id}-context.json`);
  await context.close();
});
