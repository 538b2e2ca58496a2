const STYLES: Record<string, string> = {
  pending: 'bg-sky-50 text-sky-800 ring-sky-200',
  approved: 'bg-emerald-50 text-emerald-800 ring-emerald-200',
  rejected: 'bg-red-50 text-red-800 ring-red-200',
  expired: 'bg-slate-100 text-slate-700 ring-slate-300',
};

/** A ticket's status as a small label. */
export function TicketStatusBadge({ status }: { status: string }) {
  return (
    <span
      data-testid="ticket-status"
      className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${STYLES[status] ?? STYLES.expired}`}
    >
      {status}
    </span>
  );
}
