import 'server-only';
import { db } from '@/lib/server/db';
import { getQueueStatus } from '@/lib/server/queue/status';
import { checkpointMetrics } from './registry';
import { setLogVerifyGauges } from './log-verify';
import { setWebhookGauges } from './webhooks';

/** The Prometheus text exposition format (0.0.4) that `renderMetrics` writes. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * /api/metrics: sets the scrape-time gauges (approval counts, the outbox
 * backlog, the queue) from PostgreSQL and Redis, then renders the whole
 * registry, process and Node.js metrics included.
 */
export async function renderMetrics(): Promise<string> {
  const m = checkpointMetrics();
  const prisma = await db();
  const [tickets, queue] = await Promise.all([
    prisma.approvalTicket.groupBy({ by: ['status'], _count: { _all: true } }),
    getQueueStatus(),
    setWebhookGauges(prisma),
    setLogVerifyGauges(prisma),
  ]);
  const byStatus = new Map(tickets.map((t) => [String(t.status), t._count._all]));
  const n = (s: string) => byStatus.get(s) ?? 0;
  m.approvalsRequested.set(tickets.reduce((sum, t) => sum + t._count._all, 0));
  m.approvalsDecided.set({ outcome: 'approved' }, n('approved'));
  m.approvalsDecided.set({ outcome: 'rejected' }, n('rejected'));
  m.approvalsExpired.set(n('expired'));
  m.approvalsPending.set(n('pending'));
  m.outboxBacklog.set(queue.outboxPending);
  m.queueDepth.set(queue.waiting);
  m.queueFailed.set(queue.failed);
  m.redisUp.set(queue.redis === 'online' ? 1 : 0);
  // Per queue only from a fresh reading: stale per-lane numbers would look live.
  m.queueLaneDepth.reset();
  m.queueLaneActive.reset();
  m.queueLaneFailed.reset();
  for (const lane of queue.lanes ?? []) {
    m.queueLaneDepth.set({ queue: lane.queue }, lane.waiting);
    m.queueLaneActive.set({ queue: lane.queue }, lane.active);
    m.queueLaneFailed.set({ queue: lane.queue }, lane.failed);
  }
  return m.registry.metrics();
}
