import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpApprovalResolver } from '@checkpoint/client';
import {
  type AgentContext,
  createHost,
  type Host,
  type InterceptorRegistration,
  Verdict,
} from '@checkpoint/agent-hooks';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { getInboxTicket } from '@/lib/server/approvals/inbox';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { createEmbeddedHost } from '@/lib/server/engine/embedded-host';
import { ensureBuiltInHost } from '@/lib/server/hosts/builtin';
import { closeInProcessRecordSinks } from '@/lib/server/records/in-process-sink';
import {
  ApprovalsApp,
  approvalRequest,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const STOP = { profile: 'sequential/first_deny', on_approval: 'stop' } as const;

/** The deny set of a 3-interceptor first_deny/stop fold escalating at index 1 (§7.4, §10.3). */
const EXPECTED = {
  composition: STOP,
  interceptors_registered: 3,
  verdicts: [
    { index: 0, decision: 'allow', name: 'pii-scan' },
    { index: 1, decision: 'deny', reason: 'amount_over_threshold', name: 'limits' },
  ],
  decided_by: 1,
  fold_truncated: true,
};

/** pii-scan allows, limits escalates transfers over 10,000, mail-guard counts its calls. */
function interceptors() {
  const lateCalls: string[] = [];
  const list: InterceptorRegistration[] = [
    { name: 'pii-scan', intercept: () => Verdict.allow() },
    {
      name: 'limits',
      intercept: (ctx: AgentContext) => {
        if (ctx.interception_point !== 'pre_tool_call') return Verdict.allow();
        const args = (ctx.tool_call as { args: { amount: number } }).args;
        return args.amount > 10_000 ? Verdict.escalate('amount_over_threshold') : Verdict.allow();
      },
    },
    {
      name: 'mail-guard',
      intercept: (ctx: AgentContext) => {
        lateCalls.push(ctx.interception_point);
        return Verdict.allow();
      },
    },
  ];
  return { list, lateCalls };
}

/** One session that transfers 25,000: the pre_tool_call escalates. */
async function transfer(host: Host) {
  const session = host.session();
  const call = { id: 'call-1', name: 'wire_transfer', args: { to: 'ACME', amount: 25_000 } };
  await session.start({ tools_registered: ['wire_transfer'] });
  await session.input('pay ACME', 'user');
  return session.callTool(call, () => 'sent');
}

async function pendingTicket() {
  const prisma = await testDb();
  for (let i = 0; i < 200; i++) {
    const t = await prisma.approvalTicket.findFirst({ where: { status: 'pending' } });
    if (t) return t;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no ticket arrived');
}

describe('deny_set: the composition state reaches the pending ticket', () => {
  const app = new ApprovalsApp();
  let baseUrl: string;
  let reviewer: { id: string };

  beforeAll(async () => {
    await configureTicketEvents({
      redisUrl: testRedis().url,
      channel: `${testRedis().prefix}tickets`,
    });
    baseUrl = await app.listen();
  });
  beforeEach(async () => {
    await truncateAll();
    reviewer = await userWith('rita@example.com', ['reviewer']);
  });
  afterAll(async () => {
    await app.close();
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  async function approveAndCheck(ticketId: string, contextIdentity: string | null) {
    // The reviewer's page shows it while pending, before any record exists.
    const prisma = await testDb();
    expect(await prisma.interceptionRecord.count({ where: { ticketId } })).toBe(0);
    const shown = await getInboxTicket(ticketId);
    expect(shown?.status).toBe('pending');
    expect(shown?.fold).toEqual({
      source: 'deny_set',
      verdicts: EXPECTED.verdicts,
      foldTruncated: true,
      interceptorsRegistered: 3,
      profile: 'sequential/first_deny',
      consulted: 1,
      skipped: 1,
    });
    await decideTicket({
      ticketId,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity,
    });
  }

  it('through HttpApprovalResolver and POST /api/v1/approvals', async () => {
    const { key } = await hostWithKey('remote');
    const { list, lateCalls } = interceptors();
    const host = createHost({
      agent: { id: 'billing-bot', framework: 'demo' },
      interceptors: list,
      composition: STOP,
      resolver: HttpApprovalResolver({ baseUrl, apiKey: key, timeoutMs: 20_000, pollSeconds: 2 }),
      resolverTimeoutMs: 60_000,
    });
    const running = transfer(host);
    const t = await pendingTicket();
    expect(t.denySet).toEqual(EXPECTED);
    await approveAndCheck(t.id, t.contextIdentity);
    const outcome = await running;
    expect(outcome.status).toBe('completed');
    // §7.4 "stop": mail-guard never saw the pre_tool_call, as fold_truncated said.
    expect(lateCalls).not.toContain('pre_tool_call');
  });

  it('through the QueueResolver of an in-process host', async () => {
    await ensureBuiltInHost(await testDb());
    const { list, lateCalls } = interceptors();
    const host = await createEmbeddedHost({
      agent: { id: 'billing-bot', framework: 'checkpoint' },
      interceptors: list,
      composition: STOP,
    });
    const running = transfer(host);
    const t = await pendingTicket();
    expect(t.denySet).toEqual(EXPECTED);
    await approveAndCheck(t.id, t.contextIdentity);
    expect((await running).status).toBe('completed');
    expect(lateCalls).not.toContain('pre_tool_call');

    // Once the record exists, the ticket still shows what the reviewer decided on.
    await closeInProcessRecordSinks();
    expect((await getInboxTicket(t.id))?.fold?.source).toBe('deny_set');
  });

  it('a bad deny_set is refused 400 deny_set_invalid and stores nothing', async () => {
    const { key } = await hostWithKey('remote');
    const bad = [
      { ...EXPECTED, verdicts: [{ index: 3, decision: 'deny' }], decided_by: 3 },
      { ...EXPECTED, context: { target: { iban: 'DE-SECRET' } } },
      { ...EXPECTED, composition: { profile: 'sequential/first_deny' } },
      { ...EXPECTED, verdicts: [{ index: 1, decision: 'escalate' }] },
      'summary',
    ];
    for (const deny_set of bad) {
      const res = await post(key, approvalRequest(transferContext(), { extra: { deny_set } }));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('deny_set_invalid');
    }
    const prisma = await testDb();
    expect(await prisma.approvalTicket.count()).toBe(0);
    expect(await prisma.outboxEvent.count()).toBe(0);
  });

  it('a request without deny_set (older hosts) stores null and falls back to the record', async () => {
    const { key } = await hostWithKey('remote');
    const res = await post(key, approvalRequest(transferContext()));
    expect(res.status).toBe(201);
    const t = await (await testDb()).approvalTicket.findUniqueOrThrow({
      where: { id: res.body.id },
    });
    expect(t.denySet).toBeNull();
    expect((await getInboxTicket(t.id))?.fold).toBeNull();
  });
});
