import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApprovalClientError,
  HttpApprovalResolver,
  type HttpApprovalResolverOptions,
} from '@checkpoint/client';
import {
  type AgentContext,
  type ApprovalRequest,
  createHost,
  Verdict,
} from '@checkpoint/agent-hooks';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { closeDb } from '@/lib/server/db';
import {
  ApprovalsApp,
  approvalRequest,
  hostWithKey,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/** Escalates wire transfers over 10,000 (a liftable deny, §5.1). */
function threshold(ctx: AgentContext) {
  if (ctx.interception_point !== 'pre_tool_call') return Verdict.allow();
  const args = (ctx.tool_call as { args: { amount: number } }).args;
  return args.amount > 10_000 ? Verdict.escalate('amount_over_threshold') : Verdict.allow();
}

describe('HttpApprovalResolver against the running approval routes', () => {
  const app = new ApprovalsApp();
  let baseUrl: string;
  let host: { id: string; key: string };
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
    host = await hostWithKey('remote');
    reviewer = await userWith('rita@example.com', ['reviewer']);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await app.close();
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  async function transfer(
    options: Partial<HttpApprovalResolverOptions>,
    amount = 25_000,
    to = 'ACME',
  ) {
    const received: number[] = [];
    const engine = createHost({
      agent: { id: 'billing-bot', framework: 'demo' },
      interceptors: [threshold],
      resolver: HttpApprovalResolver({
        baseUrl,
        apiKey: host.key,
        timeoutMs: 20_000,
        pollSeconds: 2,
        ...options,
      }),
      resolverTimeoutMs: 60_000,
    });
    const session = engine.session();
    const call = { id: 'call-1', name: 'wire_transfer', args: { to, amount } };
    await session.start({ tools_registered: ['wire_transfer'] });
    await session.input('pay ACME', 'user');
    await session.callModel(
      { model: { id: 'scripted' }, messages: [{ role: 'user', content: 'pay ACME' }] },
      () => ({ content: null, tool_calls: [call], finish_reason: 'tool_calls' }),
    );
    const outcome = await session.callTool(call, (args) => {
      received.push(args.amount as number);
      return 'sent';
    });
    return { outcome, received };
  }

  async function pendingTicket(): Promise<{ id: string; contextIdentity: string | null }> {
    const prisma = await testDb();
    for (let i = 0; i < 200; i++) {
      const t = await prisma.approvalTicket.findFirst({
        where: { status: 'pending' },
        select: { id: true, contextIdentity: true },
      });
      if (t) return t;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no ticket arrived');
  }

  it('approve with edit: the waiting host receives the transform and the tool the edited amount', async () => {
    const running = transfer({});
    const t = await pendingTicket();
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.contextIdentity,
      edit: { path: '$target.amount', value: 9_000 },
    });
    const { outcome, received } = await running;
    expect(outcome.status).toBe('completed');
    expect(received).toEqual([9_000]);
  });

  it("a rejection makes the reviewer's deny the combined verdict; the tool never runs", async () => {
    const running = transfer({});
    const t = await pendingTicket();
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'reject',
      reason: 'no',
      contextIdentity: t.contextIdentity,
    });
    const { outcome, received } = await running;
    // §9 reject: the resolver's deny (approval_rejected, the reviewer's words) is enforced.
    expect(outcome).toMatchObject({ status: 'blocked', reason: 'approval_rejected' });
    expect(received).toEqual([]);
  });

  it('fails closed: unresolved at its own deadline → host_error:approval_unresolved', async () => {
    const { outcome, received } = await transfer({ timeoutMs: 1_500 });
    expect(outcome).toMatchObject({ status: 'blocked', reason: 'host_error:approval_unresolved' });
    expect(received).toEqual([]);
  });

  it('fails closed: transport errors and refusals → host_error:approval_resolver_failed', async () => {
    const down = await transfer({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 3_000 });
    expect(down.outcome).toMatchObject({
      status: 'blocked',
      reason: 'host_error:approval_resolver_failed',
    });
    const badKey = await transfer({ apiKey: 'ck_nottherightkeyatallnottherightkey' });
    expect(badKey.outcome).toMatchObject({
      status: 'blocked',
      reason: 'host_error:approval_resolver_failed',
    });
    expect(await (await testDb()).approvalTicket.count()).toBe(0);
  });

  it('a POST whose answer was lost is retried safely: same identity, same ticket', async () => {
    let dropped = false;
    const lossy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'POST' && !dropped) {
        dropped = true;
        throw new TypeError('fetch failed'); // the ticket was created, the answer is lost
      }
      return res;
    };
    const running = transfer({ fetch: lossy });
    const t = await pendingTicket();
    await new Promise((r) => setTimeout(r, 600)); // let the retry land
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.contextIdentity,
    });
    const { outcome, received } = await running;
    expect(dropped).toBe(true);
    expect(outcome.status).toBe('completed');
    expect(received).toEqual([25_000]);
    expect(await (await testDb()).approvalTicket.count()).toBe(1);
  });

  it('survives an app restart while long-polling and still gets the decision', async () => {
    const running = transfer({});
    const t = await pendingTicket();
    // Restart: connections dropped, waiters, subscriber and database handle closed.
    await app.close();
    await stopApprovalsRuntime();
    await closeDb();
    await new Promise((r) => setTimeout(r, 700));
    await app.listen(app.port);
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.contextIdentity,
    });
    const { outcome, received } = await running;
    expect(outcome.status).toBe('completed');
    expect(received).toEqual([25_000]);
  });

  it('a 4xx on the request is final: one POST, the server code surfaces, the host denies (§9)', async () => {
    const posts: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'POST') posts.push(res.status);
      return res;
    };
    // U+0000 is in the value domain (the engine hashes it), but the store cannot
    // hold it: 422 nul_character. Before issue 10 it was a 500, retried 4 times.
    const { outcome, received } = await transfer({ fetch: counting }, 25_000, 'AC\u0000ME');
    expect(outcome).toMatchObject({
      status: 'blocked',
      reason: 'host_error:approval_resolver_failed',
    });
    expect(received).toEqual([]);
    expect(posts).toEqual([422]);
    expect(await (await testDb()).approvalTicket.count()).toBe(0);

    const request = approvalRequest(transferContext({ to: 'AC\u0000ME' }));
    const resolve = HttpApprovalResolver({ baseUrl, apiKey: host.key });
    const failure = await Promise.resolve()
      .then(() => resolve(request as ApprovalRequest, new AbortController().signal))
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApprovalClientError);
    expect(failure).toMatchObject({ code: 'nul_character', status: 422 });
    expect((failure as Error).message).toContain('$.context.tool_call.args.to');
  });
});
