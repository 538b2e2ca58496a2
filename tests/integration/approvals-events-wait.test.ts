import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTicketEvents, ticketEventsLive } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import {
  awaitTicket,
  FALLBACK_POLL_MS,
  jitteredInterval,
  POLL_JITTER,
  pollIntervalMs,
  SAFETY_POLL_MS,
} from '@/lib/server/approvals/wait';
import { db } from '@/lib/server/db';
import { approvalRequest, hostWithKey, post, transferContext } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis, testRedisClient } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Issue 17 item 7 (b): parked waits read the database only while the
 * ticket-event subscriber is down; re-read intervals are jittered.
 */
describe('parked waits: database polling only without pub/sub', () => {
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

  /** Counts the waiter's reads of the ticket (the only findFirst on approvalTicket here). */
  async function countReads(): Promise<{ count: () => number }> {
    const prisma = await db();
    const spy = vi.spyOn(prisma.approvalTicket, 'findFirst');
    return { count: () => spy.mock.calls.length };
  }

  async function decideElsewhere(id: string, identity: string): Promise<void> {
    const prisma = await testDb();
    await prisma.approvalTicket.update({
      where: { id },
      data: {
        status: 'approved',
        decidedAt: new Date(),
        resolution: {
          outcome: 'approve',
          context_identity: identity,
          verdict: { decision: 'allow' },
        },
      },
    });
  }

  it('with the subscriber connected, a parked wait reads once and then only on a wake-up', async () => {
    const t = await ticket();
    for (let i = 0; i < 100 && !ticketEventsLive(); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(ticketEventsLive()).toBe(true);
    const reads = await countReads();
    const waiting = awaitTicket(t.id, { hostId: host.id, waitMs: 20_000 });
    // Longer than the old 5 s safety poll: it would have read twice by now.
    await new Promise((r) => setTimeout(r, 6_000));
    expect(reads.count()).toBe(1);
    // Another instance decides and publishes: the message wakes the waiter.
    await decideElsewhere(t.id, t.identity);
    const other = testRedisClient();
    await other.publish(
      channel(),
      JSON.stringify({ type: 'decided', ticketId: t.id, hostId: host.id, origin: 'it-other' }),
    );
    await other.quit();
    const started = Date.now();
    expect((await waiting)?.state).toBe('resolved');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(reads.count()).toBe(2);
  }, 15_000);

  it('with the subscriber down, the wait falls back to reading the database about every second', async () => {
    // Nothing listens on port 1: the subscriber never becomes ready.
    await configureTicketEvents({ redisUrl: 'redis://127.0.0.1:1', channel: channel() });
    const t = await ticket();
    expect(ticketEventsLive()).toBe(false);
    const reads = await countReads();
    const answer = await awaitTicket(t.id, { hostId: host.id, waitMs: 3_000 });
    expect(answer?.state).toBe('pending');
    // Entry read plus ~3 re-reads at 0.8-1.2 s intervals.
    expect(reads.count()).toBeGreaterThanOrEqual(3);
    expect(reads.count()).toBeLessThanOrEqual(5);
  });
});

describe('re-read intervals are jittered', () => {
  it('jitteredInterval spans ±20 % of the interval, uniformly', () => {
    expect(POLL_JITTER).toBe(0.2);
    expect(jitteredInterval(1_000, () => 0)).toBe(800);
    expect(jitteredInterval(1_000, () => 0.5)).toBe(1_000);
    expect(jitteredInterval(1_000, () => 0.999_999)).toBe(1_200);
    expect(jitteredInterval(45_000, () => 0.25)).toBe(40_500);
  });

  it('pollIntervalMs: the slow safety interval with pub/sub, the fallback without, never aligned', () => {
    const live = Array.from({ length: 500 }, () => pollIntervalMs(true));
    const down = Array.from({ length: 500 }, () => pollIntervalMs(false));
    for (const v of live) {
      expect(v).toBeGreaterThanOrEqual(SAFETY_POLL_MS * 0.8);
      expect(v).toBeLessThanOrEqual(SAFETY_POLL_MS * 1.2);
    }
    for (const v of down) {
      expect(v).toBeGreaterThanOrEqual(FALLBACK_POLL_MS * 0.8);
      expect(v).toBeLessThanOrEqual(FALLBACK_POLL_MS * 1.2);
    }
    // Spread, not lock-step: many distinct values across the whole band.
    expect(new Set(down).size).toBeGreaterThan(100);
    expect(Math.min(...down)).toBeLessThan(FALLBACK_POLL_MS * 0.85);
    expect(Math.max(...down)).toBeGreaterThan(FALLBACK_POLL_MS * 1.15);
    // With Redis up, a 30 s long-poll never reaches the safety re-read.
    expect(Math.min(...live)).toBeGreaterThan(30_000);
  });
});
