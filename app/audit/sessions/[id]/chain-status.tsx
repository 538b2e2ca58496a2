import type { ChainCheck } from '@/lib/server/audit/timeline';
import type { ChainHead, HeadMismatch } from '@/lib/server/records/verify';

const count = (n: number) => `${n} ${n === 1 ? 'record' : 'records'}`;

/** What the head promised, or what the walk found, in words. */
function describeHead(h: ChainHead): string {
  return h.recordCount === 0
    ? 'no records'
    : `${count(h.recordCount)} up to sequence ${h.lastSequence}`;
}

/**
 * The walk disagrees with the session's stored chain head (issue 13): the
 * links that remain may all recompute, so only the head shows records
 * deleted from the end, inserted beside ingest, or a head rewritten.
 */
export function headMismatchText(head: HeadMismatch): { title: string; detail: string } {
  const { expected, found } = head;
  // Only a missing head has no expectation (compareHead in verify.ts).
  if (head.problem === 'head_missing' || expected === null) {
    return {
      title: 'Chain head missing',
      detail: `${describeHead(found)} stored, but the session has no head to check them against.`,
    };
  }
  const says = `the head says ${describeHead(expected)}`;
  const foundText =
    found.recordCount === 0
      ? 'found none'
      : `found ${found.recordCount}, the last at ${found.lastSequence}`;
  switch (head.problem) {
    case 'truncated':
      return {
        title: 'Chain truncated',
        detail: `${says}; ${foundText}. Records were deleted after they were stored.`,
      };
    case 'extra_records':
      return {
        title: 'Chain has extra records',
        detail: `${says}; ${foundText}. Records were stored outside ingest.`,
      };
    case 'head_mismatch':
      return {
        title: 'Chain head mismatch',
        detail: `${says}, ending in hash ${expected.headHash.slice(0, 12)}…; the records end at sequence ${found.lastSequence} in hash ${found.headHash.slice(0, 12)}….`,
      };
  }
}

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
  const head = chain.head ? headMismatchText(chain.head) : null;
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
        {head && ` ${head.title}: ${head.detail}`}
      </div>
    );
  }
  if (head) {
    return (
      <div
        role="alert"
        className={`${base} border-red-300 bg-red-50 text-red-800`}
        data-testid="chain-status"
        data-state="head"
        data-problem={chain.head?.problem}
      >
        <span className="font-semibold">{head.title}:</span> {head.detail}
        {gaps > 0 && ` ${gaps} sequence ${gaps === 1 ? 'gap' : 'gaps'} as well.`}
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
