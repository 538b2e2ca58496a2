import type { ChainCheck } from '@/lib/server/audit/timeline';

/** The result of recomputing the session's hash chain (issue 7: tamper evidence). */
export function ChainStatus({ chain }: { chain: ChainCheck }) {
  const base = 'rounded-lg border px-3 py-2 text-sm';
  if ('error' in chain) {
    return (
      <div
        className={`${base} border-slate-300 bg-slate-50 text-slate-700`}
        data-testid="chain-status"
        data-state="unknown"
      >
        {chain.error}
      </div>
    );
  }
  const gaps = chain.gaps.length;
  if (chain.firstBrokenSequence !== null) {
    return (
      <div
        role="alert"
        className={`${base} border-red-300 bg-red-50 text-red-800`}
        data-testid="chain-status"
        data-state="broken"
      >
        <span className="font-semibold">Chain broken at sequence {chain.firstBrokenSequence}.</span>{' '}
        A record was edited, removed or reordered after it was stored. {chain.checked} records
        checked
        {gaps > 0 && `, ${gaps} ${gaps === 1 ? 'gap' : 'gaps'}`}.
      </div>
    );
  }
  if (gaps > 0) {
    return (
      <div
        className={`${base} border-amber-300 bg-amber-50 text-amber-900`}
        data-testid="chain-status"
        data-state="gaps"
      >
        <span className="font-semibold">
          Chain intact, with {gaps} sequence {gaps === 1 ? 'gap' : 'gaps'}.
        </span>{' '}
        {chain.checked} records checked; the missing sequences are marked below.
      </div>
    );
  }
  return (
    <div
      className={`${base} border-emerald-200 bg-emerald-50 text-emerald-800`}
      data-testid="chain-status"
      data-state="ok"
    >
      <span className="font-semibold">Chain verified.</span> {chain.checked} records, every link
      recomputes, no gaps.
    </div>
  );
}
