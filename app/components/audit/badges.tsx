const ring = 'rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset whitespace-nowrap';

const DECISION_STYLES: Record<string, string> = {
  allow: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  deny: 'bg-red-50 text-red-700 ring-red-200',
  transform: 'bg-amber-50 text-amber-800 ring-amber-200',
};

/** The combined verdict's decision (§5). */
export function DecisionBadge({ decision }: { decision: string }) {
  return (
    <span
      className={`${ring} ${DECISION_STYLES[decision] ?? 'bg-slate-50 text-slate-700 ring-slate-200'}`}
      data-decision={decision}
    >
      {decision}
    </span>
  );
}

/** §10.3 `resolved_by`: was a human (or resolver) consulted, and did they permit? */
export function ResolvedBadge({ resolvedBy }: { resolvedBy: string | null }) {
  if (!resolvedBy) return <span className="text-slate-400">—</span>;
  const style =
    resolvedBy === 'approval'
      ? 'bg-sky-50 text-sky-700 ring-sky-200'
      : 'bg-slate-100 text-slate-700 ring-slate-300';
  return <span className={`${ring} ${style}`}>{resolvedBy}</span>;
}

/** A record a host wrote about its own failure: no session, outside every chain. */
export function HostFailureBadge() {
  return (
    <span className={`${ring} bg-fuchsia-50 text-fuchsia-800 ring-fuchsia-200`}>host failure</span>
  );
}

export function ModeBadge({ mode }: { mode: string }) {
  return mode === 'enforce' ? (
    <span className="text-slate-600">enforce</span>
  ) : (
    <span className={`${ring} bg-violet-50 text-violet-700 ring-violet-200`}>{mode}</span>
  );
}
