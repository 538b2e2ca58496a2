import Link from 'next/link';
import { Countdown } from '@/app/components/approvals/countdown';
import { ResolverBadge } from '@/app/components/approvals/resolver-hold';
import { TicketStatusBadge } from '@/app/components/approvals/ticket-status';
import { Table, Td, Th } from '@/app/components/table';
import { Time } from '@/app/components/time';
import type { InboxRow } from '@/lib/server/approvals/inbox';

/** The queue's rows: what is asked, by whom, and how long is left. */
export function QueueTable({ rows, now }: { rows: InboxRow[]; now: string }) {
  return (
    <Table caption="Approval tickets">
      <thead>
        <tr>
          <Th className="w-32">Deadline</Th>
          <Th>Request</Th>
          <Th>Reason</Th>
          <Th>Agent</Th>
          <Th>Session</Th>
          <Th>Host</Th>
          <Th className="w-28">Asked</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((t) => {
          const href = `/approvals/${t.id}`;
          return (
            <tr
              key={t.id}
              data-ticket-row
              data-ticket-id={t.id}
              data-href={href}
              data-status={t.status}
              className="hover:bg-slate-50 data-[selected=true]:bg-indigo-50 data-[selected=true]:outline data-[selected=true]:outline-1 data-[selected=true]:outline-indigo-300"
            >
              <Td className="whitespace-nowrap">
                {t.status === 'pending' && t.resolverUntil && t.resolverUntil > new Date(now) ? (
                  <ResolverBadge until={t.resolverUntil.toISOString()} />
                ) : t.status === 'pending' ? (
                  <Countdown
                    deadline={t.expiresAt.toISOString()}
                    now={now}
                    created={t.createdAt.toISOString()}
                  />
                ) : (
                  <span className="flex flex-col items-start gap-0.5">
                    <TicketStatusBadge status={t.status} />
                    {t.decidedBy && t.status !== 'expired' && (
                      <span
                        className="max-w-28 truncate text-xs text-slate-500"
                        title={t.decidedBy}
                      >
                        {t.decidedBy}
                      </span>
                    )}
                  </span>
                )}
              </Td>
              <Td>
                <Link
                  href={href}
                  className="font-medium text-slate-900 hover:text-indigo-700 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
                >
                  {t.toolName ?? t.interceptionPoint}
                </Link>
                <div className="text-xs text-slate-500">{t.interceptionPoint}</div>
              </Td>
              <Td className="font-mono text-xs">
                {t.reason ?? <span className="text-slate-400">—</span>}
              </Td>
              <Td>
                <div className="max-w-40 truncate" title={t.agentId}>
                  {t.agentLabel ?? t.agentId}
                </div>
              </Td>
              <Td>
                <div className="max-w-40 truncate font-mono text-xs" title={t.sessionId}>
                  {t.sessionLabel ?? t.sessionId}
                </div>
              </Td>
              <Td className="text-xs">{t.hostName}</Td>
              <Td className="whitespace-nowrap text-xs">
                <Time value={t.createdAt.toISOString()} now={now} />
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
