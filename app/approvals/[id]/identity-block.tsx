import Link from 'next/link';
import { CopyButton } from '@/app/components/approvals/copy-button';
import { Card } from '@/app/components/page-header';
import type { InboxTicket } from '@/lib/server/approvals/inbox';

/** The identity the decision binds to, and where the session's records live. */
export function IdentityBlock({
  ticket: t,
  canAudit,
}: {
  ticket: InboxTicket;
  /** Only auditors and admins open the audit browser: no link that leads to a refusal. */
  canAudit: boolean;
}) {
  return (
    <Card title="Identity and session">
      <dl className="space-y-2 text-sm">
        <div>
          <dt className="text-xs font-medium text-slate-500">
            Context identity ({t.identityProvider ?? 'identity-unbound host'})
          </dt>
          <dd className="mt-0.5 flex items-start gap-2">
            <code
              data-testid="context-identity"
              className="break-all font-mono text-xs text-slate-900"
            >
              {t.contextIdentity ?? 'null'}
            </code>
            {t.contextIdentity && <CopyButton text={t.contextIdentity} />}
          </dd>
        </div>
        <div>
          <dt className="text-xs font-medium text-slate-500">Session</dt>
          <dd className="mt-0.5 flex flex-wrap items-center gap-2">
            <code className="break-all font-mono text-xs">{t.sessionId}</code>
            {t.sessionLabel && <span className="text-slate-600">({t.sessionLabel})</span>}
            {t.sequence !== null && (
              <span className="text-xs text-slate-500">sequence {t.sequence}</span>
            )}
            {canAudit && (
              <Link
                href={`/audit/sessions/${encodeURIComponent(t.sessionId)}?host=${t.hostId}`}
                className="text-indigo-700 hover:underline"
              >
                The session&apos;s records in the audit browser →
              </Link>
            )}
          </dd>
        </div>
        <div>
          <dt className="text-xs font-medium text-slate-500">Ticket</dt>
          <dd className="mt-0.5 font-mono text-xs text-slate-700">{t.id}</dd>
        </div>
      </dl>
    </Card>
  );
}
