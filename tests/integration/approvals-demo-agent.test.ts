import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { ApprovalsApp, hostWithKey, userWith } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

function demo(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [path.resolve('node_modules/tsx/dist/cli.mjs'), 'scripts/demo-agent.ts'],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (b) => {
    output += String(b);
  });
  child.stderr.on('data', (b) => {
    output += String(b);
  });
  const done = new Promise<{ code: number | null; output: string }>((resolve) => {
    child.on('exit', (code) => resolve({ code, output }));
  });
  return { done, kill: () => child.kill('SIGTERM') };
}

describe('npm run demo:agent against the approval routes', () => {
  const app = new ApprovalsApp();
  let baseUrl: string;

  beforeAll(async () => {
    await configureTicketEvents({
      redisUrl: testRedis().url,
      channel: `${testRedis().prefix}tickets`,
    });
    baseUrl = await app.listen();
    await truncateAll();
  });
  afterAll(async () => {
    await app.close();
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  it('without a key it explains how to get one and exits 2, creating nothing', async () => {
    const { code, output } = await demo({ CHECKPOINT_URL: baseUrl, CHECKPOINT_API_KEY: '' }).done;
    expect(code).toBe(2);
    expect(output).toContain('open /hosts');
    expect(await (await testDb()).approvalTicket.count()).toBe(0);
  });

  it('escalates the transfer, denies the deletion, scrubs the email; the edit reaches the tool', async () => {
    const host = await hostWithKey('demo');
    const reviewer = await userWith('rita@example.com', ['reviewer']);
    const run = demo({ CHECKPOINT_URL: baseUrl, CHECKPOINT_API_KEY: host.key });
    try {
      const prisma = await testDb();
      let ticket = null;
      for (let i = 0; i < 400 && !ticket; i++) {
        ticket = await prisma.approvalTicket.findFirst({ where: { status: 'pending' } });
        if (!ticket) await new Promise((r) => setTimeout(r, 50));
      }
      expect(ticket).toMatchObject({
        toolName: 'wire_transfer',
        reason: 'amount_over_threshold',
        agentLabel: 'Demo billing agent',
        // The limit is the first of three interceptors: §7.4 "stop" skips the other two.
        denySet: {
          composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
          interceptors_registered: 3,
          verdicts: [
            { index: 0, decision: 'deny', reason: 'amount_over_threshold', name: 'ctk-0' },
          ],
          decided_by: 0,
          fold_truncated: true,
        },
      });
      await decideTicket({
        ticketId: ticket?.id as string,
        actor: { kind: 'human', userId: reviewer.id },
        outcome: 'approve',
        contextIdentity: ticket?.contextIdentity ?? null,
        edit: { path: '$target.amount', value: 9000 },
      });
      const { code, output } = await run.done;
      expect(output).toMatch(new RegExp(`ticket +http://\\S+/approvals/${ticket?.id}\\n`));
      expect(output).toContain('wire_transfer EXECUTED: 9000 EUR to ACME GmbH');
      expect(output).toContain('25000 → 9000');
      expect(output).toContain('delete_file is denied');
      expect(output).not.toContain('delete_file EXECUTED');
      expect(output).toContain('The ledger API key is [secret removed]');
      expect(output).not.toMatch(/EXECUTED.*sk_live_/);
      // Its last words say what really happened (issue 14).
      expect(output).toContain('Done: payment made (9000 EUR), old reports kept, summary sent.');
      expect(code).toBe(0);
      // One ticket only: the deletion is a plain deny, the email a transform.
      expect(await prisma.approvalTicket.count()).toBe(1);
    } finally {
      run.kill();
    }
  });

  it('after a rejection the agent does not claim the payment was made (issue 14)', async () => {
    const host = await hostWithKey('demo-reject');
    const reviewer = await userWith('ravi@example.com', ['reviewer']);
    const run = demo({ CHECKPOINT_URL: baseUrl, CHECKPOINT_API_KEY: host.key });
    try {
      const prisma = await testDb();
      let ticket = null;
      for (let i = 0; i < 400 && !ticket; i++) {
        ticket = await prisma.approvalTicket.findFirst({
          where: { status: 'pending', hostId: host.id },
        });
        if (!ticket) await new Promise((r) => setTimeout(r, 50));
      }
      await decideTicket({
        ticketId: ticket?.id as string,
        actor: { kind: 'human', userId: reviewer.id },
        outcome: 'reject',
        contextIdentity: ticket?.contextIdentity ?? null,
        reason: 'Not this month.',
      });
      const { output } = await run.done;
      expect(output).not.toContain('wire_transfer EXECUTED');
      expect(output).toContain('Done: payment NOT made (not approved)');
      expect(output).not.toContain('payment made (');
    } finally {
      run.kill();
    }
  });
});
