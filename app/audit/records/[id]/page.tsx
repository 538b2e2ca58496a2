import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { DecisionBadge, HostFailureBadge, ResolvedBadge } from '@/app/components/audit/badges';
import { Identity } from '@/app/components/audit/identity';
import { Card, PageHeader } from '@/app/components/page-header';
import { Time } from '@/app/components/time';
import { checkRecordIntegrity } from '@/lib/server/audit/integrity';
import { getRecordDetail } from '@/lib/server/audit/record-detail';
import { requireArea } from '@/lib/server/auth/session';
import { LogVerification } from './log-verification';

export const metadata: Metadata = { title: 'Record' };

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[9rem_1fr] gap-2 py-1">
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="min-w-0 break-all text-sm text-slate-800">{children}</dd>
    </div>
  );
}

export default async function RecordPage({ params }: { params: Promise<{ id: string }> }) {
  const actor = await requireArea('audit');
  const { id } = await params;
  const r = await getRecordDetail(actor, id);
  if (!r) notFound();
  const integrity = await checkRecordIntegrity(r.id).catch(() => ({
    error: 'The record could not be verified against the log right now.',
  }));
  const now = new Date().toISOString();
  const sessionHref = `/audit/sessions/${encodeURIComponent(r.sessionId)}?host=${r.hostId}`;
  return (
    <>
      <PageHeader
        title={`Record ${r.id}`}
        description={
          r.hostFailure ? (
            <>
              <HostFailureBadge /> A record host <span className="font-medium">{r.hostName}</span>{' '}
              wrote about its own failure; it belongs to no session.
            </>
          ) : (
            <>
              Sequence {r.sequence} of session{' '}
              <Link href={sessionHref} className="font-mono text-indigo-700 hover:underline">
                {r.sessionId}
              </Link>{' '}
              on host {r.hostName}.{' '}
              <Link href={sessionHref} className="text-indigo-700 hover:underline">
                ← Back to the timeline
              </Link>
            </>
          )
        }
      />
      <div className="grid items-start gap-4 lg:grid-cols-[28rem_1fr]">
        <Card title="Summary">
          <dl className="divide-y divide-slate-100">
            <Row label="Received">
              <Time value={r.receivedAt} now={now} />{' '}
              <span className="text-xs text-slate-500">({r.receivedAt})</span>
            </Row>
            <Row label="Point">
              <code>{r.interceptionPoint}</code>
            </Row>
            <Row label="Decision">
              <DecisionBadge decision={r.decision} />{' '}
              {r.reason && <code className="text-xs">{r.reason}</code>}
            </Row>
            <Row label="Resolved by">
              <ResolvedBadge resolvedBy={r.resolvedBy} />
              {r.ticketId && (
                <>
                  {' '}
                  <Link
                    href={`/approvals/${r.ticketId}`}
                    className="text-xs text-indigo-700 hover:underline"
                  >
                    approval ticket
                  </Link>
                </>
              )}
            </Row>
            <Row label="Identity provider">
              {r.identityProvider ?? <span className="text-slate-400">null (unbound)</span>}
            </Row>
            <Row label="Input identity">
              <Identity value={r.inputIdentity} label="input identity" full />
            </Row>
            <Row label="Enforced identity">
              <Identity value={r.enforcedIdentity} label="enforced identity" full />
            </Row>
            <Row label="Chain hash">
              <code className="font-mono text-xs">{r.chainHash}</code>
            </Row>
            <Row label="Previous hash">
              <code className="font-mono text-xs">{r.prevHash ?? 'none (first in chain)'}</code>
            </Row>
          </dl>
        </Card>
        <div className="space-y-4 lg:row-span-2">
          <LogVerification integrity={integrity} />
        </div>
        <Card title="The record (§10.3, as stored)">
          <pre
            className="max-h-[70vh] overflow-auto rounded bg-slate-950 p-3 font-mono text-xs leading-relaxed text-slate-100"
            data-testid="record-json"
          >
            {JSON.stringify(r.record, null, 2)}
          </pre>
        </Card>
      </div>
    </>
  );
}
