import 'server-only';
import { timingSafeEqual } from 'node:crypto';
import { hasAnyRole } from '@/lib/server/auth/roles';
import { getCurrentUser } from '@/lib/server/auth/session';
import { config } from '@/lib/server/config';
import { db } from '@/lib/server/db';
import { forbidden, unauthenticated } from '@/lib/server/http/api-error';
import { getQueueStatus } from '@/lib/server/queue/status';
import { recordMetricsSnapshot } from './metrics';

/**
 * /api/metrics in the Prometheus text format (0.0.4). Protected: a scraper
 * sends `Authorization: Bearer $METRICS_TOKEN`; people need the auditor role
 * (admins pass). Record counters are per process; approval counts, the
 * outbox backlog and the queue depth are read when scraped.
 */

export async function authorizeMetrics(req: Request): Promise<void> {
  const token = config().METRICS_TOKEN;
  const header = req.headers.get('authorization');
  if (header) {
    const sent = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (token && sent && sameSecret(sent, token)) return;
    throw unauthenticated('Send the metrics token as "Authorization: Bearer <token>".');
  }
  const user = await getCurrentUser();
  if (!user) throw unauthenticated('Sign in, or send the metrics token.');
  if (!hasAnyRole(user.roles, ['auditor'])) throw forbidden();
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

type Sample = { labels?: Record<string, string>; value: number };

function family(name: string, type: 'counter' | 'gauge', help: string, samples: Sample[]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const s of samples) lines.push(`${name}${labelText(s.labels)} ${s.value}`);
  return lines.join('\n');
}

function labelText(labels?: Record<string, string>): string {
  if (!labels || Object.keys(labels).length === 0) return '';
  const parts = Object.entries(labels).map(
    ([k, v]) =>
      `${k}="${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`,
  );
  return `{${parts.join(',')}}`;
}

export async function renderMetrics(): Promise<string> {
  const rec = recordMetricsSnapshot();
  const prisma = await db();
  const [tickets, queue] = await Promise.all([
    prisma.approvalTicket.groupBy({ by: ['status'], _count: { _all: true } }),
    getQueueStatus(),
  ]);
  const byStatus = Object.fromEntries(tickets.map((t) => [t.status, t._count._all]));
  const n = (s: string) => byStatus[s] ?? 0;
  const requested = tickets.reduce((sum, t) => sum + t._count._all, 0);
  return `${[
    family(
      'checkpoint_records_ingested_total',
      'counter',
      'InterceptionRecords stored by this process, by interception point and combined decision.',
      rec.ingested.map((r) => ({
        labels: { point: r.point, decision: r.decision },
        value: r.value,
      })),
    ),
    family(
      'checkpoint_records_host_error_total',
      'counter',
      'Stored records whose reason is host_error:*.',
      [{ value: rec.hostErrors }],
    ),
    family(
      'checkpoint_records_host_failure_total',
      'counter',
      "Stored host-failure records (a host's own failures).",
      [{ value: rec.hostFailures }],
    ),
    family(
      'checkpoint_records_refused_total',
      'counter',
      'Refused ingest requests, by error code.',
      rec.refused.map((r) => ({ labels: { code: r.code }, value: r.value })),
    ),
    family(
      'checkpoint_records_client_dropped',
      'gauge',
      'Records a host sink reported dropping (X-Checkpoint-Dropped), by host.',
      rec.clientDropped.map((r) => ({ labels: { host: r.host }, value: r.value })),
    ),
    family('checkpoint_approvals_requested', 'gauge', 'Approval tickets stored.', [
      { value: requested },
    ]),
    family('checkpoint_approvals_decided', 'gauge', 'Approval tickets decided, by outcome.', [
      { labels: { outcome: 'approved' }, value: n('approved') },
      { labels: { outcome: 'rejected' }, value: n('rejected') },
    ]),
    family('checkpoint_approvals_expired', 'gauge', 'Approval tickets that expired undecided.', [
      { value: n('expired') },
    ]),
    family('checkpoint_approvals_pending', 'gauge', 'Approval tickets waiting for a decision.', [
      { value: n('pending') },
    ]),
    family('checkpoint_outbox_backlog', 'gauge', 'Outbox rows not yet handed to the queue.', [
      { value: queue.outboxPending },
    ]),
    family(
      'checkpoint_queue_depth',
      'gauge',
      'Jobs waiting in the queue (last known while Redis is offline).',
      [{ value: queue.waiting }],
    ),
    family('checkpoint_queue_failed', 'gauge', 'Jobs in the failed set.', [
      { value: queue.failed },
    ]),
    family('checkpoint_redis_up', 'gauge', '1 when Redis answered the last probe.', [
      { value: queue.redis === 'online' ? 1 : 0 },
    ]),
  ].join('\n')}\n`;
}
