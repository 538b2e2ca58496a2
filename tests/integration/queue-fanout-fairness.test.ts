import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { commitDecision } from '@/lib/server/approvals/commit-decision';
import { expireTickets } from '@/lib/server/approvals/expire';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { jobDefinitions } from '@/lib/server/jobs/definitions';
import { jobRegistry } from '@/lib/server/jobs/handlers';
import { withHandler } from '@/lib/server/jobs/runnable';
import { JobQueue } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { startJobWorker } from '@/lib/server/queue/worker';
import { hostWithKey } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { capturingLogger, obliterateTarget, testQueueTarget, waitFor } from './helpers/queue';

// The handlers' import graph reaches the session module (next-auth), which needs Next.
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Issue 17 item 3, head-of-line by burst: one host's tickets expiring at
 * once queue hundreds of `approvals.resolved` jobs in the `fanout` lane; a
 * decision of another host made right after must not wait behind all of
 * them. The relay gives a host's n-th recent fan-out job priority n.
 */

const cleanups: (() => Promise<void>)[] = [];

async function pendingTickets(
  hostId: string,
  n: number,
  expiresAt: Date,
  contextIdentity: string | null = null,
): Promise<string[]> {
  const prisma = await testDb();
  const ids = Array.from({ length: n }, () => randomUUID());
  await prisma.approvalTicket.createMany({
    data: ids.map((id) => ({
      id,
      hostId,
      contextIdentity,
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

describe('fan-out fairness between hosts (issue 17 item 3)', () => {
  beforeEach(truncateAll);
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await stopApprovalsRuntime();
  });
  afterAll(closeTestDb);

  it("another host's decision runs among the first fan-out jobs, not after a 300-ticket burst", async () => {
    const db = await testDb();
    const a = await hostWithKey('fair-a');
    const b = await hostWithKey('fair-b');

    // Host A: 300 tickets expire in one bulk statement (300 fan-out rows).
    await pendingTickets(a.id, 300, new Date(Date.now() - 1_000));
    const expired = await expireTickets({ prisma: db, limit: 1_000 });
    expect(expired).toHaveLength(300);
    // Host B: one decision right after.
    const identity = 'sha-256:fair-b';
    const [bTicket] = await pendingTickets(b.id, 1, new Date(Date.now() + 60_000), identity);
    expect(
      await commitDecision(db, {
        ticketId: bTicket,
        deadline: 'ahead',
        status: 'rejected',
        outcome: 'reject',
        at: new Date(),
        // Stored as given; what the callback carries does not matter here.
        resolution: { outcome: 'reject', context_identity: identity },
        verdict: null,
        contextIdentity: identity,
        decidedByKind: 'user',
        userId: null,
        note: null,
        audit: { actorKind: 'user', action: 'approval.rejected', details: {} },
      }),
    ).toBe(true);

    // Both producers wrote the host into the payload.
    const rows = await db.outboxEvent.findMany({
      where: { kind: 'approvals.resolved' },
      select: { payload: true },
    });
    expect(rows).toHaveLength(301);
    const hosts = rows.map((r) => (r.payload as { hostId?: string }).hostId);
    expect(hosts.filter((h) => h === a.id)).toHaveLength(300);
    expect(hosts.filter((h) => h === b.id)).toHaveLength(1);

    const target = testQueueTarget();
    const { log } = capturingLogger();
    const queue = new JobQueue(target, undefined, log);
    cleanups.push(async () => {
      await queue.close();
      await obliterateTarget(target);
    });
    await waitFor(async () => queue.online());
    // Every row is in the fanout queue before anything runs: B's job is added last.
    const relay = new OutboxRelay({ db, queue, reconcileIntervalMs: 0, log });
    const r = await relay.runOnce();
    expect(r.dispatched).toBe(301);
    await relay.stop();

    const order: string[] = [];
    const registry = {
      ...jobRegistry,
      'approvals.resolved': withHandler(jobDefinitions['approvals.resolved'], async (p) => {
        order.push(p.ticketId);
      }),
    };
    const worker = startJobWorker({
      target,
      db,
      registry,
      heartbeatMs: 0,
      log,
      lanes: ['fanout'],
      concurrency: { fanout: 1 },
    });
    cleanups.push(() => worker.close());
    await waitFor(async () => order.includes(bTicket), 30_000);
    // FIFO would run it 301st.
    expect(order.indexOf(bTicket)).toBeLessThan(5);
  });
});
