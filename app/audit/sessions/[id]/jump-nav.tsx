import Link from 'next/link';
import { buttonClass } from '@/app/components/button-class';
import type { IntegrityCheck } from '@/lib/server/audit/timeline';
import { isFailure } from '@/lib/verify/findings';
import { PROBLEM_LABEL } from './chain-status';

/** Links listed per kind; a session with more says how many more. */
const SHOWN = 20;

type Place = { sequence: number; label: string };

/**
 * Where a large session needs looking at, above its first page (issue 16
 * item 3): its sequence holes and the records whose checks failed, each a
 * link to the page that shows it, and a form to jump to a sequence or to
 * the first record received at a moment.
 */
export function JumpNav({
  base,
  hostId,
  integrity,
  sessionRecords,
}: {
  /** The session page's URL with its host, without a position. */
  base: string;
  hostId: string;
  integrity: IntegrityCheck;
  sessionRecords: number;
}) {
  const gaps = 'error' in integrity ? [] : integrity.chain.gaps;
  const breaks = 'error' in integrity ? { places: [], omitted: 0 } : failedPlaces(integrity);
  return (
    <section aria-label="Jump within the session" className="mt-3 space-y-2 text-sm">
      <form method="get" className="flex flex-wrap items-end gap-2" data-testid="jump-form">
        <input type="hidden" name="host" value={hostId} />
        <label className="flex flex-col text-xs text-slate-600">
          Sequence
          <input
            type="number"
            name="seq"
            min={0}
            className="w-28 rounded border border-slate-300 px-2 py-1 text-sm"
          />
        </label>
        <label className="flex flex-col text-xs text-slate-600">
          Received at or after (UTC)
          <input
            type="datetime-local"
            name="at"
            step={1}
            className="rounded border border-slate-300 px-2 py-1 text-sm"
          />
        </label>
        <button type="submit" className={buttonClass('secondary')}>
          Jump
        </button>
        <span className="text-xs text-slate-500">
          {sessionRecords.toLocaleString('en-US')} records
        </span>
      </form>
      {gaps.length > 0 && (
        <PlaceList
          testId="gap-list"
          title="Sequence holes"
          base={base}
          places={gaps.map((g) => ({
            sequence: Math.max(0, g.after),
            label: g.before - g.after === 2 ? `${g.after + 1}` : `${g.after + 1}–${g.before - 1}`,
          }))}
          omitted={0}
        />
      )}
      {breaks.places.length > 0 && (
        <PlaceList
          testId="break-list"
          title="Failed checks"
          base={base}
          places={breaks.places}
          omitted={breaks.omitted}
        />
      )}
    </section>
  );
}

/** Records whose check failed, by sequence, once each. */
function failedPlaces(integrity: Exclude<IntegrityCheck, { error: string }>): {
  places: Place[];
  omitted: number;
} {
  const seen = new Map<number, string>();
  for (const f of integrity.findings) {
    if (!isFailure(f) || f.subject !== 'record' || f.problem === 'missing') continue;
    if (f.sequence === null || f.sequence < 0 || seen.has(f.sequence)) continue;
    seen.set(f.sequence, PROBLEM_LABEL[f.problem]);
  }
  const all = [...seen.entries()].sort((a, b) => a[0] - b[0]);
  return {
    places: all.slice(0, SHOWN).map(([sequence, problem]) => ({
      sequence,
      label: `#${sequence} ${problem}`,
    })),
    omitted: Math.max(0, all.length - SHOWN),
  };
}

function PlaceList({
  testId,
  title,
  base,
  places,
  omitted,
}: {
  testId: string;
  title: string;
  base: string;
  places: Place[];
  omitted: number;
}) {
  const shown = places.slice(0, SHOWN);
  const more = omitted + places.length - shown.length;
  return (
    <p className="text-xs text-slate-700" data-testid={testId}>
      <span className="font-semibold">{title}:</span>{' '}
      {shown.map((p, i) => (
        <span key={`${p.sequence}-${p.label}`}>
          {i > 0 && ', '}
          <Link href={`${base}&seq=${p.sequence}`} className="text-indigo-700 hover:underline">
            {p.label}
          </Link>
        </span>
      ))}
      {more > 0 && ` …and ${more.toLocaleString('en-US')} more`}
    </p>
  );
}
