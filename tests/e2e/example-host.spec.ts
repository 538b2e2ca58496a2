import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { BASE_URL, E2E_ADMIN, registerHost, runChild, signIn } from './fixtures';

/**
 * The two packages as a host outside the app gets them: `npm pack` of the
 * workspaces, installed into a copy of examples/host (no path back into the
 * repository), built with strict NodeNext types, then run against the
 * production app: its refund asks a reviewer, who approves it in the
 * browser; the tool runs and the host's records reach the audit store.
 */

test.describe.configure({ mode: 'serial' });

const ROOT = process.cwd();
// Laid out like the repository, so examples/host's `file:../../.packs/…` hold as written.
const work = mkdtempSync(path.join(tmpdir(), 'checkpoint-example-'));
const packs = path.join(work, '.packs');
const hostDir = path.join(work, 'examples', 'host');

function sh(cmd: string, args: string[], cwd: string) {
  const res = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  const output = `${res.stdout}\n${res.stderr}`;
  expect(res.status, `${cmd} ${args.join(' ')} failed:\n${output}`).toBe(0);
  return output;
}

test('npm pack of both packages installs into the example host, which builds with strict types', () => {
  test.setTimeout(240_000);
  mkdirSync(packs, { recursive: true });
  sh(
    'npm',
    [
      'pack',
      '--workspace',
      '@checkpoint/agent-hooks',
      '--workspace',
      '@checkpoint/client',
      '--pack-destination',
      packs,
    ],
    ROOT,
  );
  expect(readdirSync(packs).sort()).toEqual([
    'checkpoint-agent-hooks-0.1.0.tgz',
    'checkpoint-client-0.1.0.tgz',
  ]);
  cpSync(path.join(ROOT, 'examples', 'host'), hostDir, {
    recursive: true,
    filter: (src) => !/node_modules|dist|package-lock/.test(path.relative(ROOT, src)),
  });
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], hostDir);

  // What was installed is the built package, not the app's source.
  const installed = path.join(hostDir, 'node_modules', '@checkpoint');
  for (const name of ['agent-hooks', 'client']) {
    const files = readdirSync(path.join(installed, name));
    expect(files).toContain('dist');
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(existsSync(path.join(installed, name, 'dist', 'index.d.ts'))).toBe(true);
  }
  sh('npm', ['run', 'build'], hostDir);
});

test('the example host asks for approval; a reviewer approves; the refund runs and its records are stored', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password, '/hosts');
  await expect(page).toHaveURL(/\/hosts$/);
  const { hostId, apiKey } = await registerHost(page, `example-host-${Date.now().toString(36)}`);

  const agent = runChild(process.execPath, ['dist/agent.js'], {
    cwd: hostDir,
    env: { CHECKPOINT_URL: BASE_URL, CHECKPOINT_API_KEY: apiKey, REFUND_AMOUNT: '250' },
  });
  try {
    const events = () =>
      agent
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    await expect
      .poll(() => events().find((e) => e.event === 'ticket')?.id ?? agent.output(), {
        timeout: 30_000,
      })
      .toMatch(/^[0-9a-f-]{36}$/);
    const ticket = events().find((e) => e.event === 'ticket') as { id: string; ui: string };
    expect(new URL(ticket.ui).pathname).toBe(`/approvals/${ticket.id}`);

    await page.goto(`/approvals/${ticket.id}`);
    await expect(page.getByText('refund_over_limit').first()).toBeVisible();
    await page
      .locator('form[aria-label="Approve"]')
      .getByRole('button', { name: /^Approve/ })
      .click();

    const { code } = await agent.done;
    expect(code, agent.output()).toBe(0);
    const done = events().find((e) => e.event === 'done') as {
      session: string;
      status: string;
      result: { refunded: number; order: string };
      records: { sent: number; dropped: number };
    };
    expect(done.status).toBe('completed');
    expect(done.result).toEqual({ refunded: 250, order: '1042' });
    // session_start, input, pre/post tool call, shutdown: every record accepted.
    expect(done.records.dropped).toBe(0);
    expect(done.records.sent).toBeGreaterThanOrEqual(4);

    // The host's session is in the audit store, the approval linked in its timeline.
    // Verified against the signed log once the appender has logged the
    // records (about a second after ingest; until then the page says pending).
    await expect
      .poll(
        async () => {
          await page.goto(`/audit/sessions/${done.session}?host=${hostId}`);
          return page.getByTestId('chain-status').getAttribute('data-state');
        },
        { timeout: 30_000, intervals: [500, 1_000] },
      )
      .toBe('ok');
    await expect(page.getByTestId('timeline-entry')).toHaveCount(done.records.sent);
    await expect(
      page.getByTestId('timeline-entry').filter({ hasText: 'resolved by approval' }),
    ).toHaveCount(1);
  } finally {
    agent.kill();
  }
});
