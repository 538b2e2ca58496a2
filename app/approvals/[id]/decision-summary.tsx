import { Time } from '@/app/components/time';
import type { InboxTicket } from '@/lib/server/approvals/inbox';

/** How a decided (or expired) ticket ended: outcome, who, when, why, and any edit. */
export function DecisionSummary({ ticket, now }: { ticket: InboxTicket; now: string }) {
  const d = ticket.decision;
  if (ticket.status === 'expired' && (!d || d.outcome === 'unresolved')) {
    return (
      <p className="text-sm text-slate-700" data-testid="decision-summary">
        Expired at the deadline, <Time value={ticket.expiresAt.toISOString()} now={now} />: the host
        was told <code className="font-mono">unresolved</code> and enforced a deny.
      </p>
    );
  }
  if (!d) return <p className="text-sm text-slate-700">Decided.</p>;
  const verdict = d.verdict as {
    decision?: string;
    transform?: { path: string; value: unknown };
  } | null;
  const who = d.user?.name
    ? `${d.user.name} (${d.user.email})`
    : (d.user?.email ?? d.decidedByKind);
  return (
    <div className="space-y-2 text-sm text-slate-700" data-testid="decision-summary">
      <p>
        <span className="font-medium text-slate-900">
          {d.outcome === 'approve'
            ? verdict?.decision === 'transform'
              ? 'Approved with an edit'
              : 'Approved'
            : d.outcome === 'reject'
              ? 'Rejected'
              : 'Unresolved'}
        </span>{' '}
        by {who}, <Time value={d.createdAt.toISOString()} now={now} />.
      </p>
      {d.note && (
        <p>
          Reason: <q>{d.note}</q>
        </p>
      )}
      {verdict?.transform && (
        <div>
          <p>
            Edit: <code className="font-mono text-xs">{verdict.transform.path}</code> set to
          </p>
          <pre className="mt-1 max-h-48 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs">
            {JSON.stringify(verdict.transform.value, null, 2)}
          </pre>
        </div>
      )}
    </div>
  );
}
