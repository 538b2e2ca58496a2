import Link from 'next/link';
import { DecisionBadge, ModeBadge } from '@/app/components/audit/badges';
import { Identity } from '@/app/components/audit/identity';
import { Time } from '@/app/components/time';
import type { TimelineEntry } from '@/lib/server/audit/timeline';
import type { IntegrityFinding } from '@/lib/verify/findings';
import { FindingBadges } from './chain-status';

const DOT: Record<string, string> = {
  allow: 'bg-emerald-500',
  deny: 'bg-red-500',
  transform: 'bg-amber-500',
};

/** Sequences that never arrived: flagged where they belong in the order. */
export function GapMarker({ from, to }: { from: number; to: number }) {
  const text = from === to ? `Sequence ${from} is missing` : `Sequences ${from}–${to} are missing`;
  return (
    <li className="relative pl-8" data-testid="gap">
      <span
        aria-hidden
        className="absolute left-[7px] top-1.5 size-2.5 rounded-full border-2 border-dashed border-amber-500 bg-white"
      />
      <p className="rounded border border-dashed border-amber-300 bg-amber-50 px-2 py-1 text-xs font-medium text-amber-800">
        {text}: never received, or removed.
      </p>
    </li>
  );
}

function Resolution({ entry }: { entry: TimelineEntry }) {
  if (!entry.resolvedBy) return null;
  const t = entry.ticket;
  const who = t?.reviewer
    ? (t.reviewer.name ?? t.reviewer.email)
    : t?.decidedByKind
      ? `the ${t.decidedByKind === 'system' ? 'deadline' : t.decidedByKind}`
      : null;
  return (
    <div className="text-xs text-slate-700">
      <span className="font-medium">resolved by {entry.resolvedBy}</span>
      {t ? (
        <>
          {' · '}
          <Link href={`/approvals/${t.id}`} className="text-indigo-700 hover:underline">
            approval ticket ({t.status})
          </Link>
          {who && <> · decided by {who}</>}
        </>
      ) : (
        <span className="text-slate-500"> · no ticket stored for this record</span>
      )}
    </div>
  );
}

/**
 * One emission in the session: its point, combined verdict and how it came
 * about, and what the log check found wrong with it (`findings`).
 */
export function TimelineItem({
  entry,
  now,
  findings = [],
}: {
  entry: TimelineEntry;
  now: string;
  findings?: IntegrityFinding[];
}) {
  const hostError = entry.hostError;
  const failed = findings.some((f) => f.problem !== 'not_logged');
  const findingsId = `findings-${entry.id}`;
  return (
    <li
      className="relative pl-8"
      data-testid="timeline-entry"
      data-sequence={entry.sequence}
      data-integrity={failed ? 'failed' : 'ok'}
    >
      <span
        aria-hidden
        className={`absolute left-[6px] top-2 size-3 rounded-full ring-2 ring-white ${DOT[entry.decision] ?? 'bg-slate-400'}`}
      />
      <article
        className={`rounded-lg border bg-white px-3 py-2 shadow-sm ${
          failed
            ? 'border-2 border-red-400'
            : hostError
              ? 'border-fuchsia-300 bg-fuchsia-50/40'
              : 'border-slate-200'
        }`}
        aria-label={`Sequence ${entry.sequence}${failed ? ' (failed verification)' : ''}`}
        aria-describedby={findings.length > 0 ? findingsId : undefined}
      >
        <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <span className="font-mono text-xs text-slate-500">#{entry.sequence}</span>
          <span className="font-mono text-sm font-medium text-slate-900">
            {entry.interceptionPoint}
          </span>
          <DecisionBadge decision={entry.decision} />
          {entry.reason && (
            <code
              className={`text-xs ${hostError ? 'font-semibold text-fuchsia-800' : 'text-slate-700'}`}
            >
              {entry.reason}
            </code>
          )}
          {entry.liftable && <span className="text-xs text-slate-500">liftable</span>}
          {entry.mode !== 'enforce' && <ModeBadge mode={entry.mode} />}
          <span className="ml-auto text-xs text-slate-500">
            <Time value={entry.timestamp ?? entry.receivedAt} now={now} />
            {' · '}
            <Link href={`/audit/records/${entry.id}`} className="text-indigo-700 hover:underline">
              record
            </Link>
          </span>
        </header>
        <FindingBadges findings={findings} id={findingsId} />
        {entry.message && <p className="mt-1 text-xs text-slate-600">{entry.message}</p>}
        <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-600">
          <span>
            decided by{' '}
            {entry.decidedBy === null ? (
              <span className="text-slate-400">none</span>
            ) : (
              <span className="font-medium">#{entry.decidedBy}</span>
            )}
          </span>
          {entry.verdicts.length > 0 && (
            <span className="inline-flex flex-wrap gap-1">
              <span className="sr-only">Verdicts:</span>
              {entry.verdicts.map((v) => (
                <span key={v.index} className="rounded bg-slate-100 px-1.5 py-0.5" title={v.reason}>
                  [{v.index}] {v.name ?? 'interceptor'}: {v.decision}
                  {v.reason ? ` (${v.reason})` : ''}
                </span>
              ))}
            </span>
          )}
          {entry.interceptorsRegistered !== null && (
            <span>
              {entry.verdicts.length || '?'}/{entry.interceptorsRegistered} ran
              {entry.foldTruncated && (
                <span className="ml-1 font-medium text-amber-700">(fold truncated)</span>
              )}
            </span>
          )}
        </div>
        {entry.warnings.length > 0 && (
          <ul className="mt-1 space-y-0.5 text-xs text-amber-800" aria-label="Warnings">
            {entry.warnings.map((w, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a record's warnings are fixed and may repeat
              <li key={`${w.reason}-${i}`}>
                ⚠ <code>{w.reason}</code>
                {w.message && ` — ${w.message}`}
              </li>
            ))}
          </ul>
        )}
        <Resolution entry={entry} />
        <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-500">
          {entry.inputIdentity !== null && entry.inputIdentity === entry.enforcedIdentity ? (
            // The usual case, said once: a page of a huge session stays light.
            <span>
              input = enforced{' '}
              <Identity value={entry.inputIdentity} label={`identity of #${entry.sequence}`} />
            </span>
          ) : (
            <>
              <span>
                input{' '}
                <Identity
                  value={entry.inputIdentity}
                  label={`input identity of #${entry.sequence}`}
                />
              </span>
              <span>
                enforced{' '}
                <Identity
                  value={entry.enforcedIdentity}
                  label={`enforced identity of #${entry.sequence}`}
                />
              </span>
            </>
          )}
          {entry.inputIdentity !== entry.enforcedIdentity && entry.enforcedIdentity && (
            <span className="font-medium text-amber-700">transformed</span>
          )}
        </div>
      </article>
    </li>
  );
}
