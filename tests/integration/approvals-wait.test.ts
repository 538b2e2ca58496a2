import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents, ticketEventsLive } from '@/lib/server/approvals/events';
import { expireDueTickets } from '@/lib/server/approvals/expire';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { awaitTicket } from '@/lib/server/approvals/wait';
import { approvalExpireJob } from '@/lib/server/jobs/approval-expire';
import { moduleLogger } from '@/lib/server/logger';
import {
  approvalRequest,
  hostWithKey,
  poll,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis, testRedisClient } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const channel = () => `${testRedis().prefix}tickets`;

async function live(): Promise<void> {
  for (let i = 0; i < 100 && !ticketEventsLive(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(ticketEventsLive()).toBe(true);
}

describe('waiting for a decision: long-poll, expiry, instances, Redis outages', () => {
  let host: { id: string; key: string };
  let reviewer: { id: string };

  beforeEach(async () => {
    await configureTicketEvents({
      redisUrl: testRedis().url,
      channel: channel(),
      instanceId: 'it-a',
    });
    await truncateAll();
    host = await hostWithKey('billing');
    reviewer = await userWith('rita@example.com', ['reviewer']);
  });
  afterEach(stopApprovalsRuntime);
  afterAll(closeTestDb);

  async function ticket(extra: Record<string, unknown> = {}) {
    const res = await post(host.key, approvalRequest(transferContext(), { extra }));
    return { id: res.body.id as string, identity: res.body.context_identity as string };
  }

  it('answers 202 with Retry-After while pending; a malformed wait is 400 wait_invalid', async () => {
    const t = await ticket();
    const started = Date.now();
    const res = await poll(host.key, t.id, 0);
    expect(res.status).toBe(202);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toMatchObject({ id: t.id, status: 'pending' });
    expect(Date.now() - started).toBeLessThan(1_000);
    const bad = await poll(host.key, t.id, -1 as number);
    expect([bad.status, bad.body.error.code]).toEqual([400, 'wait_invalid']);
  });

  it('a long-poll returns as soon as the decision commits', async () => {
    const t = await ticket();
    await live();
    const started = Date.now();
    const waiting = poll(host.key, t.id, 10);
    await new Promise((r) => setTimeout(r, 300));
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.identity,
    });
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('approve');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('expiry: at the deadline the waiting host gets unresolved, echoing the identity', async () => {
    const t = await ticket({ timeout_ms: 1_000 });
    const res = await poll(host.key, t.id, 5);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      outcome: 'unresolved',
      context_identity: t.identity,
      receipt: expect.any(String),
    });
    const prisma = await testDb();
    const row = await prisma.approvalTicket.findUniqueOrThrow({
      where: { id: t.id },
      include: { decision: true },
    });
    expect(row.status).toBe('expired');
    expect(row.decision).toMatchObject({ outcome: 'unresolved', decidedByKind: 'system' });
    expect(
      await prisma.auditEvent.count({ where: { action: 'approval.expired', targetId: t.id } }),
    ).toBe(1);
    const fanout = await prisma.outboxEvent.findUniqueOrThrow({
      where: { dedupeKey: `approvals.resolved.${t.id}` },
    });
    expect(fanout.payload).toEqual({ ticketId: t.id, hostId: row.hostId });
  });

  it('expiry without any waiter: the bulk pass and the delayed job each expire due tickets, once', async () => {
    const a = await ticket({ timeout_ms: 1_000 });
    const b = await ticket({ timeout_ms: 1_000 });
    const c = await ticket();
    // Without the expiry scheduler (approvals-expiry-scheduler.test.ts), which would win the race.
    await stopApprovalsRuntime();
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await expireDueTickets()).toBe(2);
    expect(await expireDueTickets()).toBe(0);
    const prisma = await testDb();
    const statuses = await prisma.approvalTicket.findMany({ select: { id: true, status: true } });
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.status]))).toEqual({
      [a.id]: 'expired',
      [b.id]: 'expired',
      [c.id]: 'pending',
    });
    // The job is a no-op on an expired or a not-yet-due ticket.
    const ctx = { db: prisma, log: moduleLogger('test'), jobId: 'j', attempt: 1 };
    await approvalExpireJob.handler({ ticketId: a.id }, ctx);
    await approvalExpireJob.handler({ ticketId: c.id }, ctx);
    expect(await prisma.decision.count()).toBe(2);
    const d = await ticket({ timeout_ms: 1_000 });
    await stopApprovalsRuntime();
    await new Promise((r) => setTimeout(r, 1_100));
    await approvalExpireJob.handler({ ticketId: d.id }, ctx);
    expect((await prisma.approvalTicket.findUniqueOrThrow({ where: { id: d.id } })).status).toBe(
      'expired',
    );
  });

  it('another instance’s decision reaches this instance’s waiter through Redis pub/sub', async () => {
    const t = await ticket();
    await live();
    const started = Date.now();
    const waiting = awaitTicket(t.id, { hostId: host.id, waitMs: 10_000 });
    await new Promise((r) => setTimeout(r, 200));
    // "Instance B" commits without this process hearing it, then publishes.
    const prisma = await testDb();
    await prisma.approvalTicket.update({
      where: { id: t.id },
      data: {
        status: 'approved',
        decidedAt: new Date(),
        resolution: {
          outcome: 'approve',
          context_identity: t.identity,
          verdict: { decision: 'allow' },
        },
      },
    });
    const other = testRedisClient();
    await other.publish(
      channel(),
      JSON.stringify({ type: 'decided', ticketId: t.id, hostId: host.id, origin: 'it-b' }),
    );
    await other.quit();
    const answer = await waiting;
    expect(answer?.state).toBe('resolved');
    // Well under the 30 s backstop check (waiters.ts): the message woke it.
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('with Redis down, the batched check (every second) answers waiters', async () => {
    // Nothing listens on port 1: the subscriber never becomes ready.
    await configureTicketEvents({
      redisUrl: 'redis://127.0.0.1:1',
      channel: channel(),
      instanceId: 'it-c',
    });
    const t = await ticket();
    expect(ticketEventsLive()).toBe(false);
    const waiting = awaitTicket(t.id, { hostId: host.id, waitMs: 10_000 });
    await new Promise((r) => setTimeout(r, 200));
    const prisma = await testDb();
    await prisma.approvalTicket.update({
      where: { id: t.id },
      data: {
        status: 'rejected',
        decidedAt: new Date(),
        resolution: {
          outcome: 'reject',
          context_identity: t.identity,
          verdict: { decision: 'deny' },
        },
      },
    });
    const started = Date.now();
    const answer = await waiting;
    expect(answer?.state).toBe('resolved');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('a pending answer at the end of the wait, never longer than asked', async () => {
    const t = await ticket();
    const started = Date.now();
    const answer = await awaitTicket(t.id, { hostId: host.id, waitMs: 700 });
    expect(answer?.state).toBe('pending');
    expect(Date.now() - started).toBeGreaterThanOrEqual(650);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(
      await awaitTicket(t.id, { hostId: '00000000-0000-4000-8000-000000000000', waitMs: 0 }),
    ).toBeNull();
  });
});
