import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { listDeliveries } from '@/lib/server/webhooks/delivery-log';
import { consultResolver } from '@/lib/server/webhooks/resolver';
import { verifyWebhook } from '@/lib/server/webhooks/signing';
import { saveWebhook, selfTestResolver, setWebhookEnabled } from '@/lib/server/webhooks/webhooks';
import { approvalRequest, hostWithKey, post, transferContext } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { waitFor } from './helpers/queue';
import { testRedis } from './helpers/redis';
import { type Received, Receiver, startPipeline } from './webhooks-fixtures';

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

type Answer = (req: { context_identity: string | null }, r: Received) => unknown;

/**
 * A resolver service: answers self-test cases as asked (echoing the
 * identity), and real requests with whatever `answer` says now.
 */
function resolverService(answer: () => Answer, delayMs = () => 0) {
  return new Receiver((r) => {
    const req = JSON.parse(r.body);
    const testCase = r.headers['webhook-test-case'];
    if (r.headers['webhook-test'] === 'true') {
      const outcome = testCase === 'identity_echo' ? 'unresolved' : testCase;
      const verdict =
        outcome === 'approve'
          ? { decision: 'allow' }
          : outcome === 'reject'
            ? { decision: 'deny', reason: 'policy:no', message: 'no' }
            : undefined;
      return {
        status: 200,
        body: JSON.stringify({ outcome, context_identity: req.context_identity, verdict }),
      };
    }
    return { status: 200, body: JSON.stringify(answer()(req, r)), delayMs: delayMs() };
  });
}

describe('resolver webhook (issue 6, §9)', () => {
  let hostId: string;
  let key: string;
  let answer: Answer;
  let delay = 0;
  let service: Receiver;
  let secret: string;

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(async () => {
    await truncateAll();
    const host = await hostWithKey('policy-host');
    hostId = host.id;
    key = host.key;
    delay = 0;
    service = resolverService(
      () => answer,
      () => delay,
    );
    await service.start();
    const saved = await saveWebhook(
      { hostId, kind: 'resolver', url: `${service.url}/resolve`, timeoutMs: 800 },
      null,
    );
    expect(saved.selfTest?.ok).toBe(true);
    expect(saved.webhook.enabled).toBe(true);
    secret = saved.secret as string;
  });
  afterEach(() => service.stop());
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  async function newTicket(args: Record<string, unknown> = {}) {
    const res = await post(key, approvalRequest(transferContext(args)));
    expect(res.status).toBe(201);
    return res.body as { id: string; context_identity: string };
  }

  async function ticketState(id: string) {
    const prisma = await testDb();
    return prisma.approvalTicket.findUniqueOrThrow({
      where: { id },
      select: {
        status: true,
        resolution: true,
        decision: { select: { decidedByKind: true, note: true } },
      },
    });
  }

  it('approve: the signed, stored request is POSTed and the ticket is decided by the resolver', async () => {
    answer = (req) => ({
      outcome: 'approve',
      context_identity: req.context_identity,
      verdict: { decision: 'allow' },
    });
    const t = await newTicket();
    expect(await consultResolver(t.id)).toEqual({ outcome: 'approved' });
    const sent = service.received.filter((r) => !r.headers['webhook-test']);
    expect(sent).toHaveLength(1);
    expect(verifyWebhook(secret, sent[0].headers, sent[0].body).ok).toBe(true);
    const request = JSON.parse(sent[0].body);
    expect(request).toMatchObject({
      context_identity: t.context_identity,
      interception_point: 'pre_tool_call',
    });
    expect(request.verdict.decision).toBe('deny');
    const state = await ticketState(t.id);
    expect(state.status).toBe('approved');
    expect(state.decision?.decidedByKind).toBe('resolver');
    // Consulted once: a rerun of the job sends nothing.
    expect(await consultResolver(t.id)).toEqual({ outcome: 'skipped' });
    expect(service.received.filter((r) => !r.headers['webhook-test'])).toHaveLength(1);
  });

  it('approve with a transform: the edit is what the host receives', async () => {
    answer = (req) => ({
      outcome: 'approve',
      context_identity: req.context_identity,
      verdict: { decision: 'transform', transform: { path: '$target.amount', value: 9000 } },
    });
    const t = await newTicket();
    expect(await consultResolver(t.id)).toEqual({ outcome: 'approved' });
    const state = await ticketState(t.id);
    expect(state.resolution).toMatchObject({
      outcome: 'approve',
      verdict: { decision: 'transform', transform: { path: '$target.amount', value: 9000 } },
    });
  });

  it('reject: decided by the resolver, its message kept as the reason', async () => {
    answer = (req) => ({
      outcome: 'reject',
      context_identity: req.context_identity,
      verdict: { decision: 'deny', reason: 'policy:limit', message: 'Over the daily limit.' },
    });
    const t = await newTicket();
    expect(await consultResolver(t.id)).toEqual({ outcome: 'rejected' });
    const state = await ticketState(t.id);
    expect(state.status).toBe('rejected');
    expect(state.decision).toMatchObject({
      decidedByKind: 'resolver',
      note: 'Over the daily limit.',
    });
    // §9: the host enforces the resolver's own deny, reason code and message.
    expect(state.resolution).toMatchObject({
      outcome: 'reject',
      verdict: { decision: 'deny', reason: 'policy:limit', message: 'Over the daily limit.' },
    });
  });

  it.each([
    [
      'unresolved',
      () => (req: { context_identity: string | null }) => ({
        outcome: 'unresolved',
        context_identity: req.context_identity,
      }),
      'unresolved',
      'unresolved',
    ],
    [
      'identity mismatch',
      () => () => ({
        outcome: 'approve',
        context_identity: 'sha256:0000',
        verdict: { decision: 'allow' },
      }),
      'invalid',
      'host_error:approval_identity_mismatch',
    ],
    [
      'approve carrying a deny (§9 consistency)',
      () => (req: { context_identity: string | null }) => ({
        outcome: 'approve',
        context_identity: req.context_identity,
        verdict: { decision: 'deny', reason: 'x' },
      }),
      'invalid',
      'host_error:verdict_invalid',
    ],
    ['not JSON', () => () => undefined, 'invalid', 'resolution_not_json'],
  ] as const)(
    '%s leaves the ticket to humans, never a permit',
    async (_name, make, outcome, reason) => {
      answer = make() as Answer;
      const t = await newTicket();
      expect(await consultResolver(t.id)).toEqual({ outcome, reason });
      expect((await ticketState(t.id)).status).toBe('pending');
      const [row] = (await listDeliveries(hostId)).filter((d) => d.ticketId === t.id);
      expect(row).toMatchObject({ kind: 'resolver', attempts: 1, lastError: reason });
      const prisma = await testDb();
      const ev = await prisma.auditEvent.findFirstOrThrow({
        where: { action: 'webhook.resolver_consulted', targetId: t.id },
      });
      expect(ev.details).toMatchObject({ outcome, reason });
    },
  );

  it('a timeout leaves the ticket pending, recorded as timeout', async () => {
    answer = (req) => ({
      outcome: 'approve',
      context_identity: req.context_identity,
      verdict: { decision: 'allow' },
    });
    delay = 2_000;
    const t = await newTicket();
    const started = Date.now();
    expect(await consultResolver(t.id)).toEqual({ outcome: 'failed', reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1_800);
    expect((await ticketState(t.id)).status).toBe('pending');
    const [row] = await listDeliveries(hostId);
    expect(row).toMatchObject({ status: 'dead', lastError: 'timeout' });
  });

  it('through the jobs: intake → approvals.created → resolver decides → approvals.resolved → callback', async () => {
    answer = (req) => ({
      outcome: 'approve',
      context_identity: req.context_identity,
      verdict: { decision: 'allow' },
    });
    const callbacks = new Receiver(() => ({ status: 200 }));
    await callbacks.start();
    const pipe = await startPipeline();
    try {
      const cb = await saveWebhook({ hostId, kind: 'callback', url: `${callbacks.url}/cb` }, null);
      const t = await newTicket();
      await waitFor(async () => callbacks.received.length === 1);
      const r = callbacks.received[0];
      expect(verifyWebhook(cb.secret as string, r.headers, r.body).ok).toBe(true);
      expect(JSON.parse(r.body).data).toMatchObject({
        ticket_id: t.id,
        context_identity: t.context_identity,
        status: 'approved',
        resolution: { outcome: 'approve', context_identity: t.context_identity },
      });
      expect((await ticketState(t.id)).decision?.decidedByKind).toBe('resolver');
      const kinds = await waitFor(async () => {
        const rows = await listDeliveries(hostId);
        return rows.every((d) => d.status === 'delivered')
          ? rows.map((d) => [d.kind, d.status]).sort()
          : null;
      });
      expect(kinds).toEqual([
        ['callback', 'delivered'],
        ['resolver', 'delivered'],
      ]);
    } finally {
      await pipe.stop();
      await callbacks.stop();
    }
  });

  it('self-test: a resolver that breaks the echo rule is refused and stays disabled', async () => {
    const liar = new Receiver((r) => {
      const req = JSON.parse(r.body);
      const id = req.context_identity === null ? null : String(req.context_identity).toUpperCase();
      return { status: 200, body: JSON.stringify({ outcome: 'unresolved', context_identity: id }) };
    });
    await liar.start();
    try {
      const other = await hostWithKey('liar-host');
      const saved = await saveWebhook(
        { hostId: other.id, kind: 'resolver', url: `${liar.url}/r` },
        null,
      );
      expect(saved.selfTest).toMatchObject({ ok: false, echoOk: false });
      expect(saved.selfTest?.cases.find((c) => c.name === 'approve')).toMatchObject({
        ok: false,
        detail: 'host_error:approval_identity_mismatch',
      });
      // The null-identity case echoes null correctly, and says so.
      expect(saved.selfTest?.cases.find((c) => c.name === 'identity_echo')).toMatchObject({
        ok: true,
      });
      expect(saved.webhook.enabled).toBe(false);
      const err = await setWebhookEnabled(other.id, 'resolver', true, null).catch((e) => e);
      expect(err.code).toBe('webhook_self_test_failed');
      // A disabled resolver is never consulted.
      const t = await post(other.key, approvalRequest(transferContext()));
      expect(await consultResolver(t.body.id)).toEqual({ outcome: 'skipped' });
    } finally {
      await liar.stop();
    }
  });

  it('self-test on demand reports each case with the header flag and the case name', async () => {
    const before = service.received.length;
    const result = await selfTestResolver(hostId, null);
    expect(result.ok).toBe(true);
    expect(result.cases.map((c) => [c.name, c.detail, c.matched])).toEqual([
      ['approve', 'approve', true],
      ['reject', 'reject', true],
      ['unresolved', 'unresolved', true],
      ['identity_echo', 'unresolved', true],
    ]);
    const sent = service.received.slice(before);
    expect(sent.map((r) => r.headers['webhook-test-case'])).toEqual([
      'approve',
      'reject',
      'unresolved',
      'identity_echo',
    ]);
    expect(JSON.parse(sent[3].body).context_identity).toBeNull();
  });
});
