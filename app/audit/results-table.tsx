import Link from 'next/link';
import {
  DecisionBadge,
  HostFailureBadge,
  ModeBadge,
  ResolvedBadge,
} from '@/app/components/audit/badges';
import { Table, Td, Th } from '@/app/components/table';
import { Time } from '@/app/components/time';
import type { AuditRow } from '@/lib/server/audit/rows';

export function sessionHref(hostId: string, sessionId: string): string {
  return `/audit/sessions/${encodeURIComponent(sessionId)}?host=${hostId}`;
}

/** The search results: one dense row per record, newest first. */
export function ResultsTable({ rows, now }: { rows: AuditRow[]; now: string }) {
  return (
    <Table caption="Interception records">
      <thead>
        <tr>
          <Th>Received</Th>
          <Th>Host</Th>
          <Th>Session</Th>
          <Th className="text-right">Seq</Th>
          <Th>Point</Th>
          <Th>Decision</Th>
          <Th>Reason</Th>
          <Th title="resolved_by (§10.3)">Resolved</Th>
          <Th title="fold_truncated: an interceptor was never invoked (§10.3)">Truncated</Th>
          <Th>Mode</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((r) => (
          <tr key={r.id} className="hover:bg-slate-50" data-record-id={r.id}>
            <Td className="whitespace-nowrap">
              <Link
                href={`/audit/records/${r.id}`}
                className="text-indigo-700 hover:underline"
                aria-label={`Record ${r.id}`}
              >
                <Time value={r.receivedAt} now={now} />
              </Link>
            </Td>
            <Td className="max-w-36 truncate whitespace-nowrap" title={r.hostName}>
              {r.hostName}
            </Td>
            <Td className="max-w-44 truncate">
              {r.hostFailure ? (
                <HostFailureBadge />
              ) : (
                <Link
                  href={sessionHref(r.hostId, r.sessionId)}
                  className="font-mono text-xs text-indigo-700 hover:underline"
                  title={r.sessionId}
                >
                  {r.sessionId}
                </Link>
              )}
            </Td>
            <Td className="text-right tabular-nums">{r.hostFailure ? '—' : r.sequence}</Td>
            <Td className="whitespace-nowrap font-mono text-xs">{r.interceptionPoint}</Td>
            <Td>
              <DecisionBadge decision={r.decision} />
            </Td>
            <Td className="max-w-56 truncate font-mono text-xs" title={r.reason ?? undefined}>
              {r.reason ?? <span className="text-slate-400">—</span>}
            </Td>
            <Td>
              <ResolvedBadge resolvedBy={r.resolvedBy} />
            </Td>
            <Td>
              {r.foldTruncated ? (
                <span className="text-amber-700">yes</span>
              ) : (
                <span className="text-slate-400">no</span>
              )}
            </Td>
            <Td>
              <ModeBadge mode={r.mode} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
