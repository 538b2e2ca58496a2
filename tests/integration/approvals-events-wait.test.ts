import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTicketEvents, ticketEventsLive } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { awaitTicket } from '@/lib/server/approvals/wait';
import {
  BACKSTOP_CHECK_MS,
  FALLBACK_CHECK_MS,
  safetyCheckIntervalMs,
  safetyCheckStatements,
  waitedTicketCount,
} from '@/lib/server/approvals/waiters';
import { db } from '@/lib/server/db';
import { approvalRequest, hostWithKey, post, transferContext } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis, testRedisClient } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Issue 16 item 5: a parked wait never reads on a timer of its own. Pub/sub
 * wakes it; one batched check per process (`id = ANY($waiting)`, waiters.ts)
 * stands in for pub/sub while the subscriber is down, and as a 30 s backstop.
 */
describe('parked waits: pub/sub, else one batched check per process', () => {
  const channel = () => `${testRedis().prefix}events-wait`;
  let host: { id: string; key: string };

  beforeEach(async () => {
    await configureTicketEvents({
      redisUrl: testRedis().url,
      channel: channel(),
      instanceId: 'it-w',
    });
    await truncateAll();
    host = await hostWithKey('billing');
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await stopApprovalsRuntime();
  });
  afterAll(closeTestDb);

  async function ticket(): Promise<{ id: string; identity: string }> {
    const res = await post(host.key, approvalRequest(transferContext()));
    return { id: res.body.id as string, identity: res.body.context_identity as string };
  }

  /**
   * Counts the waiters' own reads of their tickets (ticket-reads.ts: one
   * findMany for the reads of a turn), as tickets read and as statements.
   */
  async function countReads(): Promise<{ count: () => number; statements: () => number }> {
    const prisma = await db();
    const spy = vi.spyOn(prisma.approvalTicket, 'findMany');
    const reads = () =>
      spy.mock.calls
        .map((c) => c[0] as { where?: { id?: { in?: string[] } }; select?: { decision?: unknown } })
        .filter((a) => a?.select?.decision);
    return {
      count: () => reads().reduce((n, a) => n + (a.where?.id?.in?.length ?? 0), 0),
      statements: () => reads().length,
    };
  }

  async function live(): Promise<void> {
    for (let i = 0; i < 100 && !ticketEventsLive(); i++) await sleep(20);
    expect(ticketEventsLive()).toBe(true);
  }

  /** Until `n` tickets have a parked waiter (each read its ticket once). */
  async function parked(n: number): Promise<void> {
    for (let i = 0; i < 500 && waitedTicketCount() < n; i++) await sleep(10);
    expect(waitedTicketCount()).toBe(n);
  }

  /** Another instance commits (this process hears nothing of it). */
  async function settleElsewhere(
    t: { id: string; identity: string },
    status: 'approved' | 'expired',
  ): Promise<void> {
    const prisma = await testDb();
    await prisma.approvalTicket.update({
      where: { id: t.id },
      data: {
        status,
        decidedAt: new Date(),
        resolution:
          status === 'approved'
            ? { outcome: 'approve', context_identity: t.identity, verdict: { decision: 'allow' } }
            : { outcome: 'unresolved', context_identity: t.identity },
      },
    });
  }

  async function publish(type: 'decided' | 'expired', ticketId: string): Promise<void> {
    const other = testRedisClient();
    await other.publish(
      channel(),
      JSON.stringify({ type, ticketId, hostId: host.id, origin: 'it-other' }),
    );
    await other.quit();
  }

  function subscriber(): Redis {
    const s = (globalThis as { __checkpointTicketEvents?: { subscriber?: Redis } })
      .__checkpointTicketEvents?.subscriber;
    if (!s) throw new Error('no ticket-event subscriber');
    return s;
  }

  it('the check runs every second without the subscriber, every 30 s with it', () => {
    expect(safetyCheckIntervalMs(false)).toBe(FALLBACK_CHECK_MS);
    expect(safetyCheckIntervalMs(true)).toBe(BACKSTOP_CHECK_MS);
    // With Redis up, a 30 s long-poll ends before the backstop would read.
    expect(BACKSTOP_CHECK_MS).toBeGreaterThanOrEqual(30_000);
  });

  it('Redis up: the waiter reads once, no check runs, and the published event answers it', async () => {
    const t = await ticket();
    await live();
    const reads = await countReads();
    const checks = safetyCheckStatements();
    const waiting = awaitTicket(t.id, { hostId: host.id, waitMs: 25_000 });
    await parked(1);
    // Longer than the fallback interval: a check or a re-read would have run by now.
    await sleep(2.5 * FALLBACK_CHECK_MS);
    expect(reads.count()).toBe(1);
    await settleElsewhere(t, 'approved');
    await publish('decided', t.id);
    const answer = await waiting;
    expect(answer).toMatchObject({ state: 'resolved', status: 'approved' });
    expect(answer?.state === 'resolved' && answer.resolution.outcome).toBe('approve');
    // Woken by the message, not by a check (the backstop is 30 s away).
    expect(safetyCheckStatements()).toBe(checks);
    expect(reads.count()).toBe(2);
  }, 30_000);

  it('subscriber disconnected: the batched check answers the waiter, with no message', async () => {
    const t = await ticket();
    await live();
    const waiting = awaitTicket(t.id, { hostId: host.id, waitMs: 25_000 });
    await parked(1);
    subscriber().disconnect();
    for (let i = 0; i < 100 && ticketEventsLive(); i++) await sleep(10);
    expect(ticketEventsLive()).toBe(false);
    const checks = safetyCheckStatements();
    await settleElsewhere(t, 'approved');
    const answer = await waiting;
    expect(answer).toMatchObject({ state: 'resolved', status: 'approved' });
    expect(safetyCheckStatements()).toBeGreaterThan(checks);
  }, 30_000);

  it('many waiters: one statement per interval, not one read per waiter', async () => {
    // Nothing listens on port 1: the subscriber never becomes ready.
    await configureTicketEvents({ redisUrl: 'redis://127.0.0.1:1', channel: channel() });
    const tickets: Array<{ id: string; identity: string }> = [];
    for (let i = 0; i < 40; i++) tickets.push(await ticket());
    expect(ticketEventsLive()).toBe(false);
    const reads = await countReads();
    const prisma = await db();
    const raw = vi.spyOn(prisma, '$queryRaw');
    const checkCalls = () =>
      raw.mock.calls.filter((c) => String((c[0] as readonly string[]).join('?')).includes('unnest'))
        .length;
    const started = Date.now();
    const waits = tickets.map((t) => awaitTicket(t.id, { hostId: host.id, waitMs: 25_000 }));
    await parked(tickets.length);
    await sleep(3.5 * FALLBACK_CHECK_MS);
    const elapsed = Date.now() - started;
    // Each waiter read its own ticket once, on entry, and never again; the
    // entry reads of one turn went out together.
    expect(reads.count()).toBe(tickets.length);
    expect(reads.statements()).toBeLessThan(tickets.length);
    // At most one check per interval (however many waiters), and at least one ran.
    const checks = checkCalls();
    expect(checks).toBeGreaterThanOrEqual(1);
    expect(checks).toBeLessThanOrEqual(Math.ceil(elapsed / FALLBACK_CHECK_MS));
    // Deciding one wakes that one only: one more read.
    await settleElsewhere(tickets[7], 'approved');
    expect(await waits[7]).toMatchObject({ state: 'resolved', id: tickets[7].id });
    expect(reads.count()).toBe(tickets.length + 1);
    expect(waitedTicketCount()).toBe(tickets.length - 1);
    for (const t of tickets) if (t !== tickets[7]) await settleElsewhere(t, 'approved');
    const rest = await Promise.all(waits);
    expect(rest.every((a) => a?.state === 'resolved')).toBe(true);
    expect(waitedTicketCount()).toBe(0);
  }, 40_000);

  it('Redis down: an expired ticket answers unresolved, a decided one its outcome, a deleted one null', async () => {
    await configureTicketEvents({ redisUrl: 'redis://127.0.0.1:1', channel: channel() });
    const [expired, decided, gone] = [await ticket(), await ticket(), await ticket()];
    const waits = [expired, decided, gone].map((t) =>
      awaitTicket(t.id, { hostId: host.id, waitMs: 25_000 }),
    );
    await parked(3);
    await settleElsewhere(expired, 'expired');
    await settleElsewhere(decided, 'approved');
    await (await testDb()).approvalTicket.delete({ where: { id: gone.id } });
    const [a, b, c] = await Promise.all(waits);
    expect(a).toMatchObject({ state: 'resolved', status: 'expired' });
    expect(a?.state === 'resolved' && a.resolution).toEqual({
      outcome: 'unresolved',
      context_identity: expired.identity,
    });
    expect(b).toMatchObject({ state: 'resolved', status: 'approved' });
    expect(c).toBeNull();
  }, 30_000);

  it('fails closed: a row out of pending with no resolution is never answered as resolved', async () => {
    await configureTicketEvents({ redisUrl: 'redis://127.0.0.1:1', channel: channel() });
    const t = await ticket();
    const reads = await countReads();
    const waiting = awaitTicket(t.id, { hostId: host.id, waitMs: 2_500 });
    await parked(1);
    // Not a commit any code path makes: status changed, resolution missing.
    await (await testDb()).approvalTicket.update({
      where: { id: t.id },
      data: { status: 'approved' },
    });
    const answer = await waiting;
    expect(answer?.state).toBe('pending');
    // The check woke it (it re-read), and it kept waiting.
    expect(reads.count()).toBeGreaterThan(1);
  }, 30_000);
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
