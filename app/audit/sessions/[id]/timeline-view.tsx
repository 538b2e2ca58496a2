import Link from 'next/link';
import { ExportButtons } from '@/app/components/audit/export-button';
import { buttonClass } from '@/app/components/button-class';
import { PageHeader } from '@/app/components/page-header';
import { EmptyState } from '@/app/components/states';
import type { SessionTimeline } from '@/lib/server/audit/timeline';
import type { IntegrityFinding } from '@/lib/verify/findings';
import { IntegrityStatus, VerifierNote } from './chain-status';
import { HostFailures } from './host-failures';
import { JumpNav } from './jump-nav';
import { GapMarker, TimelineItem } from './timeline-entry';

/**
 * One page of a session's timeline as the session page shows it, apart
 * from the page so that the records bench can render it and weigh it.
 */
export function SessionTimelineView({
  timeline,
  now,
}: {
  timeline: Extract<SessionTimeline, { kind: 'timeline' }>;
  /** ISO time the relative times are shown against. */
  now: string;
}) {
  const sessionId = timeline.sessionId;
  const base = `/audit/sessions/${encodeURIComponent(sessionId)}?host=${timeline.host.id}`;
  const exportHref = `/api/audit/export?scope=session&host=${timeline.host.id}&session=${encodeURIComponent(sessionId)}`;
  // Records, proofs, receipts, tree head and JWKS for an outside auditor (issue 13 item 5).
  const evidenceHref = `/api/v1/audit/sessions/${encodeURIComponent(sessionId)}/evidence?host_id=${timeline.host.id}`;
  const findingsOf = recordFindings(timeline.integrity);
  return (
    <>
      <PageHeader
        title={`Session ${sessionId}`}
        description={
          <>
            On host <span className="font-medium text-slate-800">{timeline.host.name}</span> ·{' '}
            {timeline.host.records.toLocaleString('en-US')} records, in sequence order ·{' '}
            <Link
              href={`/audit?session=${encodeURIComponent(sessionId)}&host=${timeline.host.id}`}
              className="text-indigo-700 hover:underline"
            >
              as a table
            </Link>
          </>
        }
        actions={
          <div className="flex flex-wrap items-center gap-2">
            <ExportButtons href={exportHref} label="Export session" />
            <a href={evidenceHref} className={buttonClass('secondary')} download>
              Download evidence
            </a>
          </div>
        }
      />
      <IntegrityStatus integrity={timeline.integrity} />
      <VerifierNote integrity={timeline.integrity} />
      <JumpNav
        base={base}
        hostId={timeline.host.id}
        integrity={timeline.integrity}
        sessionRecords={timeline.host.records}
      />
      <HostFailures failures={timeline.hostFailures} now={now} />
      {timeline.entries.length === 0 ? (
        <div className="mt-4">
          <EmptyState title="No more entries in this session" />
        </div>
      ) : (
        <ol
          className="relative mt-4 space-y-2 before:absolute before:bottom-2 before:left-[11px] before:top-2 before:w-px before:bg-slate-200"
          aria-label="Session timeline"
        >
          {timeline.entries.map((e) => (
            <GapEntry key={e.id} entry={e} now={now} findings={findingsOf.get(e.id)} />
          ))}
        </ol>
      )}
      <nav aria-label="Pages" className="mt-3 flex gap-2">
        {timeline.after >= 0 && (
          <Link href={base} className={buttonClass('secondary')}>
            From the start
          </Link>
        )}
        {timeline.nextAfter !== null && (
          <Link
            href={`${base}&after=${timeline.nextAfter}`}
            className={buttonClass('secondary')}
            rel="next"
          >
            Later entries →
          </Link>
        )}
      </nav>
    </>
  );
}

/** The log check's findings about single records, by record id (session-wide ones stay in the summary). */
function recordFindings(
  integrity: Parameters<typeof IntegrityStatus>[0]['integrity'],
): Map<string, IntegrityFinding[]> {
  const byId = new Map<string, IntegrityFinding[]>();
  if ('error' in integrity) return byId;
  for (const f of integrity.findings) {
    if (f.subject !== 'record' || f.recordId === null) continue;
    byId.set(f.recordId, [...(byId.get(f.recordId) ?? []), f]);
  }
  return byId;
}

function GapEntry({
  entry,
  now,
  findings,
}: {
  entry: Parameters<typeof TimelineItem>[0]['entry'];
  now: string;
  findings?: IntegrityFinding[];
}) {
  return (
    <>
      {entry.gapBefore && <GapMarker from={entry.gapBefore.from} to={entry.gapBefore.to} />}
      <TimelineItem entry={entry} now={now} findings={findings} />
    </>
  );
}
