import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { commitDecision } from '@/lib/server/approvals/commit-decision';
import {
  configureTicketEvents,
  onTicketEvent,
  type TicketEvent,
  ticketEventsLive,
} from '@/lib/server/approvals/events';
import { expireTicket, expireTickets } from '@/lib/server/approvals/expire';
import {
  type ExpiryScheduler,
  startExpiryScheduler,
} from '@/lib/server/approvals/expiry-scheduler';
import { buildResolution } from '@/lib/server/approvals/resolution';
import { ensureApprovalsRuntime, stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { openDatabase } from '@/lib/server/db/open';
import { approvalRequest, hostWithKey, post, transferContext } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis, testRedisClient } from './helpers/redis';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const channel = () => `${testRedis().prefix}tickets`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pending tickets written directly (intake has its own tests): `identities[i]` per ticket. */
async function insertTickets(
  hostId: string,
  identities: (string | null)[],
  expiresAt: Date,
): Promise<string[]> {
  const prisma = await testDb();
  const ids = identities.map(() => randomUUID());
  await prisma.approvalTicket.createMany({
    data: ids.map((id, i) => ({
      id,
      hostId,
      contextIdentity: identities[i],
      interceptionPoint: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'r', approval: {} },
      context: {},
      sessionId: 's',
      agentId: 'a',
      expiresAt,
    })),
  });
  return ids;
}

async function waitFor(cond: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > end) return false;
    await sleep(25);
  }
}

async function status(id: string): Promise<string> {
  const prisma = await testDb();
  return (await prisma.approvalTicket.findUniqueOrThrow({ where: { id } })).status;
}

/** A client on a port nothing listens on: every statement fails to connect. */
async function unreachableDb(): Promise<PrismaClient> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const handle = await openDatabase({
    kind: 'postgres',
    url: `postgresql://postgres@127.0.0.1:${port}/none`,
    limits: { statementTimeoutMs: 1_000, lockTimeoutMs: 500, connectTimeoutMs: 500, poolMax: 1 },
  });
  return handle.client;
}

describe('ticket expiry: bulk, exactly once, at the deadline (issue 17 item 7)', () => {
  let host: { id: string; key: string };
  const schedulers: ExpiryScheduler[] = [];

  beforeEach(async () => {
    await configureTicketEvents({
      redisUrl: testRedis().url,
      channel: channel(),
      instanceId: 'x-a',
    });
    await truncateAll();
    host = await hostWithKey('expiry');
  });
  afterEach(async () => {
    for (const s of schedulers.splice(0)) await s.stop();
    await stopApprovalsRuntime();
  });
  afterAll(closeTestDb);

  it('writes exactly what a single commitDecision expiry writes, resolution byte for byte', async () => {
    const prisma = await testDb();
    const identities = [null, 'sha-256:abc', null, 'ident "quoted" \u00e9'];
    const past = new Date(Date.now() - 1_000);
    const bulkIds = await insertTickets(host.id, identities, past);
    const oneIds = await insertTickets(
      host.id,
      identities.map((i) => i && `${i}-1`),
      past,
    );
    const at = new Date();
    // The reference: the per-ticket statement expiry used before the bulk one.
    for (const [i, id] of oneIds.entries()) {
      const identity = identities[i] && `${identities[i]}-1`;
      expect(
        await commitDecision(prisma, {
          ticketId: id,
          deadline: 'passed',
          status: 'expired',
          outcome: 'unresolved',
          at,
          resolution: buildResolution(identity, 'unresolved'),
          verdict: null,
          contextIdentity: identity,
          decidedByKind: 'system',
          userId: null,
          note: null,
          audit: {
            actorKind: 'system',
            action: 'approval.expired',
            details: { outcome: 'unresolved', contextIdentity: identity },
          },
        }),
      ).toBe(true);
    }
    const expired = await expireTickets({ now: at });
    expect(expired.map((t) => t.id).sort()).toEqual([...bulkIds].sort());
    expect(expired.every((t) => t.hostId === host.id)).toBe(true);

    const snapshot = async (id: string, identity: string | null) => {
      const [row] = await prisma.$queryRaw<
        { resolution: string; status: string; decidedAt: Date }[]
      >`
        SELECT "resolution"::text AS "resolution", "status"::text AS "status", "decidedAt"
          FROM "ApprovalTicket" WHERE "id" = ${id}::uuid`;
      // The text PostgreSQL stores for buildResolution's JSON, and the object read back.
      const [ref] = await prisma.$queryRaw<{ t: string }[]>`
        SELECT ${JSON.stringify(buildResolution(identity, 'unresolved'))}::jsonb::text AS "t"`;
      expect(row.resolution).toBe(ref.t);
      const parsed = await prisma.approvalTicket.findUniqueOrThrow({ where: { id } });
      expect(JSON.stringify(parsed.resolution)).toBe(
        JSON.stringify(buildResolution(identity, 'unresolved')),
      );
      const decision = await prisma.decision.findUniqueOrThrow({ where: { ticketId: id } });
      const audit = await prisma.auditEvent.findMany({ where: { targetId: id } });
      const outbox = await prisma.outboxEvent.findMany({
        where: { payload: { path: ['ticketId'], equals: id } },
      });
      expect(audit).toHaveLength(1);
      expect(outbox).toHaveLength(1);
      return {
        status: row.status,
        decidedAt: row.decidedAt.toISOString(),
        decision: {
          outcome: decision.outcome,
          verdict: decision.verdict,
          contextIdentity: decision.contextIdentity,
          decidedByKind: decision.decidedByKind,
          userId: decision.userId,
          note: decision.note,
          createdAt: decision.createdAt.toISOString(),
        },
        audit: {
          actorId: audit[0].actorId,
          actorKind: audit[0].actorKind,
          action: audit[0].action,
          targetType: audit[0].targetType,
          details: JSON.stringify(audit[0].details),
          createdAt: audit[0].createdAt.toISOString(),
        },
        outbox: {
          kind: outbox[0].kind,
          dedupeKey: outbox[0].dedupeKey.replace(id, '<id>'),
          availableAt: outbox[0].availableAt.toISOString(),
        },
      };
    };
    for (const [i, id] of bulkIds.entries()) {
      const bulk = await snapshot(id, identities[i]);
      const one = await snapshot(oneIds[i], identities[i] && `${identities[i]}-1`);
      expect(bulk).toEqual({
        ...one,
        decision: { ...one.decision, contextIdentity: identities[i] },
        audit: {
          ...one.audit,
          details: JSON.stringify({ outcome: 'unresolved', contextIdentity: identities[i] }),
        },
      });
      expect(bulk.status).toBe('expired');
      expect(bulk.outbox.dedupeKey).toBe('approvals.resolved.<id>');
    }
    // Idempotent: nothing is due any more, and one ticket by id is a no-op.
    expect(await expireTickets()).toEqual([]);
    expect(await expireTicket(bulkIds[0])).toBe(false);
  });

  it('two schedulers, two bulk runs and racing decisions: every ticket settles exactly once', async () => {
    const prisma = await testDb();
    const n = 300;
    const deadline = new Date(Date.now() + 1_500);
    const ids = await insertTickets(
      host.id,
      Array.from({ length: n }, (_, i) => (i % 3 === 0 ? null : `id-${i}`)),
      deadline,
    );
    const identity = (i: number) => (i % 3 === 0 ? null : `id-${i}`);
    const expiredEvents: string[] = [];
    const off = onTicketEvent((e: TicketEvent) => {
      if (e.type === 'expired') expiredEvents.push(e.ticketId);
    });
    schedulers.push(startExpiryScheduler({ batchSize: 40, jitterMs: 0 }));
    schedulers.push(startExpiryScheduler({ batchSize: 40, jitterMs: 0 }));
    // Every other ticket gets a decision, spread from 300 ms before to 80 ms after the deadline.
    const decided = new Map<string, boolean>();
    const decisions = ids
      .filter((_, i) => i % 2 === 0)
      .map(async (id, k) => {
        const i = k * 2;
        await sleep(Math.max(0, deadline.getTime() - 300 - Date.now()) + (k % 20) * 20);
        const verdict = { decision: 'allow' } as const;
        const won = await commitDecision(prisma, {
          ticketId: id,
          deadline: 'ahead',
          status: 'approved',
          outcome: 'approve',
          at: new Date(),
          resolution: buildResolution(identity(i), 'approve', verdict),
          verdict,
          contextIdentity: identity(i),
          decidedByKind: 'human',
          userId: null,
          note: null,
          audit: { actorKind: 'user', action: 'approval.decided', details: {} },
        });
        decided.set(id, won);
      });
    const bulk = (async () => {
      await sleep(Math.max(0, deadline.getTime() - Date.now()));
      return Promise.all([expireTickets({ limit: 60 }), expireTickets({ limit: 60 })]);
    })();
    await Promise.all(decisions);
    const [b1, b2] = await bulk;
    expect(
      await waitFor(
        async () => (await prisma.approvalTicket.count({ where: { status: 'pending' } })) === 0,
        5_000,
      ),
    ).toBe(true);
    // A pass publishes its events after its commit: let running passes finish.
    for (const s of schedulers.splice(0)) await s.stop();
    off();

    const bulkIds = [...b1, ...b2].map((t) => t.id);
    expect(new Set(bulkIds).size).toBe(bulkIds.length);
    const rows = await prisma.approvalTicket.findMany({
      select: { id: true, status: true, decision: { select: { outcome: true } } },
    });
    // Tickets' events only (signing the receipts may generate the key, an event of its own).
    const audits = await prisma.auditEvent.groupBy({
      by: ['targetId'],
      where: { targetType: 'approval_ticket' },
      _count: true,
    });
    const outbox = await prisma.outboxEvent.findMany({ where: { kind: 'approvals.resolved' } });
    expect(await prisma.decision.count()).toBe(n);
    expect(audits).toHaveLength(n);
    expect(audits.every((a) => a._count === 1)).toBe(true);
    expect(outbox).toHaveLength(n);
    expect(new Set(outbox.map((o) => (o.payload as { ticketId: string }).ticketId)).size).toBe(n);
    let won = 0;
    for (const r of rows) {
      if (decided.get(r.id)) {
        won++;
        expect([r.status, r.decision?.outcome]).toEqual(['approved', 'approve']);
      } else {
        expect([r.status, r.decision?.outcome]).toEqual(['expired', 'unresolved']);
      }
    }
    // The race was real: some decisions won, some lost to the deadline.
    expect(won).toBeGreaterThan(0);
    expect(won).toBeLessThan(n / 2);
    // One `expired` event per expired ticket, none for decided ones.
    expect(expiredEvents.sort()).toEqual(
      rows
        .filter((r) => r.status === 'expired')
        .map((r) => r.id)
        .sort(),
    );
  });

  it('a ticket due in 1 s (intake minimum) is expired by the scheduler alone, woken by its created event', async () => {
    ensureApprovalsRuntime();
    // The scheduler's first pass finds nothing and goes to sleep for the longest interval (5 s).
    await sleep(300);
    const res = await post(
      host.key,
      approvalRequest(transferContext(), { extra: { timeout_ms: 1_000 } }),
    );
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    // No relay, worker or sweep runs here: only the woken scheduler can do it before
    // its 5 s sleep ends (about 4.7 s from now).
    expect(await waitFor(async () => (await status(id)) === 'expired', 3_000)).toBe(true);
  });

  it("another instance's created event, through Redis, wakes the scheduler too", async () => {
    schedulers.push(startExpiryScheduler());
    for (let i = 0; i < 100 && !ticketEventsLive(); i++) await sleep(20);
    expect(ticketEventsLive()).toBe(true);
    await sleep(200);
    const expiresAt = new Date(Date.now() + 300);
    const [id] = await insertTickets(host.id, ['other-instance'], expiresAt);
    const redis = testRedisClient();
    try {
      await redis.publish(
        channel(),
        JSON.stringify({
          type: 'created',
          ticketId: id,
          hostId: host.id,
          expiresAt: expiresAt.toISOString(),
          origin: 'x-b',
        }),
      );
    } finally {
      redis.disconnect();
    }
    expect(await waitFor(async () => (await status(id)) === 'expired', 3_000)).toBe(true);
  });

  it('keeps working after database errors: retries with back-off, then expires', async () => {
    const broken = await unreachableDb();
    let down = true;
    const prisma = await testDb();
    schedulers.push(
      startExpiryScheduler({ maxSleepMs: 1_000, db: async () => (down ? broken : prisma) }),
    );
    const [id] = await insertTickets(host.id, [null], new Date(Date.now() - 10));
    await sleep(1_200);
    expect(await status(id)).toBe('pending');
    down = false;
    expect(await waitFor(async () => (await status(id)) === 'expired', 3_000)).toBe(true);
    await broken.$disconnect();
  });
});
