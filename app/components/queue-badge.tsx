import Link from 'next/link';
import { getQueueStatus } from '@/lib/server/queue/status';

/**
 * The queue's health in the header: a small green "queue ok", or an amber
 * "queue offline, N jobs waiting" while Redis is down (the work waits in
 * the outbox and nothing is lost). Links to /status for the details.
 */
export async function QueueBadge() {
  const status = await getQueueStatus().catch(() => null);
  const base =
    'inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset';
  if (!status) {
    return (
      <Link href="/status" className={`${base} bg-slate-100 text-slate-700 ring-slate-300`}>
        queue status unknown
      </Link>
    );
  }
  const details = `${status.waiting} waiting in the queue, ${status.outboxPending} in the outbox, ${status.failed} failed`;
  if (status.redis === 'offline') {
    const waiting = status.waiting + status.outboxPending;
    return (
      <Link
        href="/status"
        title={details}
        data-testid="queue-badge"
        data-state="offline"
        className={`${base} bg-amber-50 text-amber-800 ring-amber-300`}
      >
        <span aria-hidden className="size-1.5 rounded-full bg-amber-500" />
        queue offline, {waiting} {waiting === 1 ? 'job' : 'jobs'} waiting
      </Link>
    );
  }
  return (
    <Link
      href="/status"
      title={details}
      data-testid="queue-badge"
      data-state="ok"
      className={`${base} bg-emerald-50 text-emerald-700 ring-emerald-200`}
    >
      <span aria-hidden className="size-1.5 rounded-full bg-emerald-500" />
      queue ok
    </Link>
  );
}
