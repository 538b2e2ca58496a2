import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AgentContext, Verdict } from '@checkpoint/agent-hooks';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { createEmbeddedHost } from '@/lib/server/engine/embedded-host';
import { closeInProcessRecordSinks } from '@/lib/server/records/in-process-sink';
import { ensureBuiltInHost } from '@/lib/server/hosts/builtin';
import { type Body, userWith } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

function threshold(ctx: AgentContext) {
  if (ctx.interception_point !== 'pre_tool_call') return Verdict.allow();
  const args = (ctx.tool_call as { args: { amount: number } }).args;
  return args.amount > 10_000 ? Verdict.escalate('amount_over_threshold') : Verdict.allow();
}

describe('QueueResolver: in-process emissions of the built-in host', () => {
  let reviewer: { id: string };

  beforeAll(async () => {
    await configureTicketEvents({
      redisUrl: testRedis().url,
      channel: `${testRedis().prefix}tickets`,
    });
  });
  beforeEach(async () => {
    await truncateAll();
    const prisma = await testDb();
    const { id } = await ensureBuiltInHost(prisma);
    await prisma.host.update({ where: { id }, data: { redactionPaths: ['$target.iban'] } });
    reviewer = await userWith('rita@example.com', ['reviewer']);
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  async function run(ticketTimeoutMs?: number) {
    const host = await createEmbeddedHost({
      agent: { id: 'billing-bot', framework: 'checkpoint' },
      interceptors: [threshold],
      ticketTimeoutMs,
      agentLabel: 'Billing bot',
    });
    const received: unknown[] = [];
    const session = host.session();
    const call = { id: 'c1', name: 'wire_transfer', args: { amount: 25_000, iban: 'DE-SECRET-1' } };
    await session.start({ tools_registered: ['wire_transfer'] });
    await session.input('pay', 'user');
    await session.callModel(
      { model: { id: 'm' }, messages: [{ role: 'user', content: 'pay' }] },
      () => ({
        content: null,
        tool_calls: [call],
        finish_reason: 'tool_calls',
      }),
    );
    const outcome = await session.callTool(call, (args) => {
      received.push(args);
      return 'sent';
    });
    return { outcome, received };
  }

  async function pending() {
    const prisma = await testDb();
    for (let i = 0; i < 200; i++) {
      const t = await prisma.approvalTicket.findFirst({ where: { status: 'pending' } });
      if (t) return t;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no ticket');
  }

  it('a liftable deny becomes a redacted ticket; an edit reaches the tool, the redacted field untouched', async () => {
    const running = run();
    const t = await pending();
    expect((t.context as Body).target.iban).toBe('[redacted]');
    expect(t.redactedPaths).toEqual(['$target.iban']);
    expect(t.agentLabel).toBe('Billing bot');
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.contextIdentity,
      edit: { path: '$target.amount', value: 9_000 },
    });
    const { outcome, received } = await running;
    expect(outcome.status).toBe('completed');
    // The transform applies to the host's real target: the IBAN the tool gets is the real one.
    expect(received).toEqual([{ amount: 9_000, iban: 'DE-SECRET-1' }]);

    // Issue 7: the in-process emissions' records reach the audit store, and
    // the consulted one is linked to its ticket.
    await closeInProcessRecordSinks();
    const records = await (await testDb()).interceptionRecord.findMany({
      where: { sessionId: t.sessionId },
      orderBy: { sequence: 'asc' },
    });
    expect(records.map((r) => r.interceptionPoint)).toEqual([
      'agent_startup',
      'input',
      'pre_model_call',
      'post_model_call',
      'pre_tool_call',
      'post_tool_call',
    ]);
    const consulted = records.find((r) => r.interceptionPoint === 'pre_tool_call');
    expect(consulted).toMatchObject({
      resolvedBy: 'approval',
      ticketId: t.id,
      agentId: 'billing-bot',
    });
    expect(JSON.stringify(records.map((r) => r.record))).not.toContain('DE-SECRET-1');
  });

  it("a reject: the reviewer's deny is what the host enforces and what the stored record shows (§9, issue 10)", async () => {
    const running = run();
    const t = await pending();
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'reject',
      contextIdentity: t.contextIdentity,
      reason: 'Supplier not verified',
    });
    const { outcome, received } = await running;
    expect(received).toEqual([]);
    expect(outcome).toMatchObject({ status: 'blocked', reason: 'approval_rejected' });
    if (outcome.status !== 'blocked') throw new Error('not blocked');
    expect(outcome.pre.verdict).toEqual({
      decision: 'deny',
      reason: 'approval_rejected',
      message: 'Supplier not verified',
      // Issue 13: the receipt pointer reaches the host's record unchanged (§5.3).
      evidence: expect.objectContaining({
        artefact: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      }),
    });

    await closeInProcessRecordSinks();
    const stored = await (await testDb()).interceptionRecord.findFirst({
      where: { sessionId: t.sessionId, interceptionPoint: 'pre_tool_call' },
    });
    expect(stored).toMatchObject({
      decision: 'deny',
      reason: 'approval_rejected',
      resolvedBy: 'rejection',
      decidedBy: 0,
      hostError: false,
      ticketId: t.id,
    });
    expect((stored?.record as { verdict?: unknown } | undefined)?.verdict).toEqual({
      decision: 'deny',
      reason: 'approval_rejected',
      message: 'Supplier not verified',
      evidence: expect.objectContaining({
        artefact: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      }),
    });
  });

  it('an expired ticket resolves unresolved: the host enforces host_error:approval_unresolved', async () => {
    const { outcome, received } = await run(1_000);
    expect(outcome).toMatchObject({ status: 'blocked', reason: 'host_error:approval_unresolved' });
    expect(received).toEqual([]);
  });
});
