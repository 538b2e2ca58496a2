import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { PageHeader } from '@/app/components/page-header';
import { Table, Td, Th } from '@/app/components/table';
import { getSessionTimeline } from '@/lib/server/audit/timeline';
import { requireArea } from '@/lib/server/auth/session';
import { isUuid } from '@/lib/server/http/uuid';
import { SessionTimelineView } from './timeline-view';

export const metadata: Metadata = { title: 'Session' };

/** A whole number ≥ `min` from a query parameter, else undefined (a bad one is ignored). */
function intParam(raw: string | string[] | undefined, min: number): number | undefined {
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(n) && n >= min ? n : undefined;
}

/** `at`: a moment from the jump form (datetime-local, read as UTC) or an ISO time. */
function timeParam(raw: string | string[] | undefined): Date | undefined {
  if (typeof raw !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(raw)) return undefined;
  const date = new Date(/(?:Z|[+-]\d\d:?\d\d)$/i.test(raw) ? raw : `${raw}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Next hands the segment over still percent-encoded; a malformed one names no session. */
function decodeParam(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

type Props = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function SessionPage({ params, searchParams }: Props) {
  const actor = await requireArea('audit');
  const { id } = await params;
  const sessionId = decodeParam(id);
  if (sessionId === null) notFound();
  const sp = await searchParams;
  const host = typeof sp.host === 'string' && isUuid(sp.host) ? sp.host.toLowerCase() : undefined;
  const after = intParam(sp.after, -1);
  // Jumps (issue 16 item 3): to a sequence, or to the first record received at a moment.
  const fromSequence = after === undefined ? intParam(sp.seq, 0) : undefined;
  const fromTime = after === undefined && fromSequence === undefined ? timeParam(sp.at) : undefined;
  const timeline = await getSessionTimeline(actor, {
    sessionId,
    hostId: host,
    after,
    fromSequence,
    fromTime,
  });

  if (timeline.kind === 'not_found') notFound();
  if (timeline.kind === 'choose_host') {
    return (
      <>
        <PageHeader
          title={`Session ${sessionId}`}
          description="Session ids are chosen by each host, and this one was used by more than one. Pick the host."
        />
        <Table caption="Hosts with this session">
          <thead>
            <tr>
              <Th>Host</Th>
              <Th className="text-right">Records</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {timeline.hosts.map((h) => (
              <tr key={h.id}>
                <Td>
                  <Link
                    href={`/audit/sessions/${encodeURIComponent(sessionId)}?host=${h.id}`}
                    className="text-indigo-700 hover:underline"
                  >
                    {h.name}
                  </Link>
                </Td>
                <Td className="text-right tabular-nums">{h.records}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      </>
    );
  }

  return <SessionTimelineView timeline={timeline} now={new Date().toISOString()} />;
}
