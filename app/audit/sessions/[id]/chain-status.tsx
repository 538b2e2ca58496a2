import type { IntegrityCheck } from '@/lib/server/audit/timeline';
import type { TreeHeadInfo } from '@/lib/server/audit/integrity';
import { type IntegrityFinding, isFailure } from '@/lib/verify/findings';

const count = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'record' : 'records'}`;

/** Problem names as people read them. */
export const PROBLEM_LABEL: Record<IntegrityFinding['problem'], string> = {
  altered: 'altered',
  missing: 'missing',
  truncated: 'truncated',
  out_of_order: 'out of order',
  forged: 'forged',
  not_logged: 'not yet logged',
  tree_head_invalid: 'tree head invalid',
  proof_failed: 'proof failed',
  inconsistent: 'inconsistent',
  deleted_by_retention: 'deleted by retention',
};

/** "signed tree head #10 (10 leaves, 2026-12-03 14:00:00 UTC, key abc…)" */
export function describeTreeHead(h: TreeHeadInfo): string {
  const at = new Date(h.timestamp)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const leaves = `${h.size.toLocaleString('en-US')} ${h.size === 1 ? 'leaf' : 'leaves'}`;
  return `signed tree head #${h.size} (${leaves}, ${at}, key ${h.kid})`;
}

type Checked = Exclude<IntegrityCheck, { error: string }>;

const seqRange = (from: number | null, to: number | null) =>
  from === to ? `sequence ${from}` : `sequences ${from}–${to}`;

/** "records 501–1,000 (sequences 500–999) of 100,000" for a page of a larger session. */
function pageText(integrity: Checked): string {
  const s = integrity.scope;
  const n = (x: number) => x.toLocaleString('en-US');
  return `records ${n(s.firstPosition)}–${n(s.lastPosition)} (${seqRange(s.firstSequence, s.lastSequence)}) of ${n(s.sessionRecords)}`;
}

/**
 * What the page did not re-check itself, said plainly: the rows of other
 * pages were checked for their place in the chain, not re-hashed.
 */
function ScopeNote({ integrity }: { integrity: Checked }) {
  if (integrity.scope.complete) return null;
  const c = integrity.chain;
  const intact = c.gaps.length === 0 && c.head === undefined;
  return (
    <p className="mt-1" data-testid="integrity-scope">
      {intact
        ? `The whole session (${count(integrity.scope.sessionRecords)}) was checked for its structure: no sequence holes, every stored link points at the record stored before it, and it ends at its chain head.`
        : `The whole session (${count(integrity.scope.sessionRecords)}) was checked for its structure (sequence holes, links between stored records, its chain head); the problems found are listed.`}{' '}
      Records on other pages were not re-hashed or proved here: open their page, or see the
      background verifier.
    </p>
  );
}

/**
 * The session checked against the transparency log (issue 13 item 4): a
 * plain summary naming the head the page's records were proved against and
 * what was checked how, or each problem naming its record. Colour repeats
 * what the words say.
 */
export function IntegrityStatus({ integrity }: { integrity: IntegrityCheck }) {
  const base = 'rounded-lg border px-3 py-2 text-sm';
  if ('error' in integrity) {
    return (
      <div
        className={`${base} border-slate-300 bg-slate-50 text-slate-700`}
        data-testid="chain-status"
        data-state="unknown"
      >
        {integrity.error}
      </div>
    );
  }
  const failures = integrity.findings.filter(isFailure);
  const pending = integrity.findings.filter((f) => !isFailure(f));
  const head = integrity.treeHead;
  const against = head ? `against ${describeTreeHead(head)}` : null;
  const complete = integrity.scope.complete;
  if (failures.length === 0) {
    const logged = integrity.checkedRecords - pending.length;
    const pendingText = `${count(logged)} of ${integrity.checkedRecords.toLocaleString('en-US')} in the log; ${count(pending.length)} not yet (the log appends within seconds).`;
    return (
      <div
        className={`${base} border-emerald-200 bg-emerald-50 text-emerald-800`}
        data-testid="chain-status"
        data-state={pending.length > 0 ? 'pending' : 'ok'}
      >
        {complete ? (
          <p>
            <span className="font-semibold">
              {against ? `Verified ${against}` : 'No signed tree head yet'}
            </span>{' '}
            —{' '}
            {pending.length === 0
              ? `${count(integrity.checkedRecords)}, all in the log; the chain is intact.`
              : pendingText}
          </p>
        ) : (
          <p>
            <span className="font-semibold">
              {against
                ? `${capital(pageText(integrity))} verified ${against}`
                : `No signed tree head yet for ${pageText(integrity)}`}
            </span>{' '}
            —{' '}
            {pending.length === 0
              ? 'each against its leaf, its copied columns, its chain link and an inclusion proof.'
              : pendingText}
          </p>
        )}
        <ScopeNote integrity={integrity} />
      </div>
    );
  }
  const problems = failures.length + integrity.omittedFindings;
  const what = complete ? count(integrity.checkedRecords) : pageText(integrity);
  return (
    <div
      role="alert"
      className={`${base} border-red-300 bg-red-50 text-red-800`}
      data-testid="chain-status"
      data-state="failed"
      data-problems={[...new Set(failures.map((f) => f.problem))].join(' ')}
    >
      <p>
        <span className="font-semibold">
          {problems} {problems === 1 ? 'problem' : 'problems'}
        </span>{' '}
        {against ? `checking ${what} ${against}:` : `checking ${what} against the log:`}
      </p>
      <ul className="mt-1 list-disc space-y-0.5 pl-5" data-testid="integrity-findings">
        {failures.map((f, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: findings are a fixed list per render
          <li key={i} data-problem={f.problem}>
            <span className="font-semibold">{PROBLEM_LABEL[f.problem]}:</span> {f.detail}
          </li>
        ))}
        {integrity.omittedFindings > 0 && <li>…and {integrity.omittedFindings} more.</li>}
      </ul>
      <ScopeNote integrity={integrity} />
    </div>
  );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "2026-12-03 14:00:00 UTC" */
const utc = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

/**
 * The newest background verifier run (the whole log re-hashed and proved),
 * with its failures that name this session: the part of the session a page
 * view does not re-check itself.
 */
export function VerifierNote({ integrity }: { integrity: IntegrityCheck }) {
  if ('error' in integrity) return null;
  const run = integrity.verifier;
  const base = 'mt-1 text-xs';
  if (!run) {
    return (
      <p className={`${base} text-slate-600`} data-testid="verifier-status" data-state="none">
        The background verifier has not checked the whole log yet.
      </p>
    );
  }
  const leaves = `${run.checkedLeaves.toLocaleString('en-US')} of ${run.size.toLocaleString('en-US')} leaves`;
  if (run.ok) {
    return (
      <p className={`${base} text-slate-600`} data-testid="verifier-status" data-state="ok">
        The whole log was last verified by the background verifier at {utc(run.finishedAt)} (
        {leaves}): ok.
      </p>
    );
  }
  return (
    <div
      className={`${base} text-red-800`}
      data-testid="verifier-status"
      data-state="failed"
      role={run.sessionFailures.length > 0 ? 'alert' : undefined}
    >
      <p>
        The whole log was last verified by the background verifier at {utc(run.finishedAt)} (
        {leaves}): {run.failureCount} {run.failureCount === 1 ? 'problem' : 'problems'}
        {run.sessionFailures.length > 0
          ? `, ${run.sessionFailures.length} of those it stored in this session:`
          : ', none of those it stored in this session.'}
      </p>
      {run.sessionFailures.length > 0 && (
        <ul className="list-disc pl-5">
          {run.sessionFailures.map((f, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: findings are a fixed list per render
            <li key={i} data-problem={f.problem}>
              <span className="font-semibold">{PROBLEM_LABEL[f.problem]}:</span> {f.detail}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A record's failing findings on its timeline entry: badge and words, not colour alone. */
export function FindingBadges({ findings, id }: { findings: IntegrityFinding[]; id: string }) {
  if (findings.length === 0) return null;
  return (
    <div id={id} className="mt-1 space-y-0.5" data-testid="record-findings">
      {findings.map((f, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: findings are a fixed list per render
        <p key={i} className="text-xs text-red-800">
          <span
            className={`mr-1 rounded border px-1.5 py-0.5 font-semibold ${
              isFailure(f)
                ? 'border-red-300 bg-red-50 text-red-800'
                : 'border-slate-300 bg-slate-50 text-slate-700'
            }`}
            data-testid="integrity-badge"
            data-problem={f.problem}
          >
            {isFailure(f) ? '⚠ ' : ''}
            {PROBLEM_LABEL[f.problem]}
          </span>
          <span className={isFailure(f) ? '' : 'text-slate-600'}>{f.detail}</span>
        </p>
      ))}
    </div>
  );
}
