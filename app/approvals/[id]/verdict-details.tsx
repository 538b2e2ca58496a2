import { Card } from '@/app/components/page-header';
import type { InboxTicket } from '@/lib/server/approvals/inbox';

type StoredVerdict = {
  decision?: string;
  reason?: string;
  message?: string;
  warnings?: { reason?: string; message?: string }[];
  evidence?: { artefact?: string; verification_pointers?: Record<string, string> };
};

/**
 * Why the agent was stopped: the liftable deny's message and warnings, its
 * evidence (as text: §5.3 pointers are never dereferenced, so never links),
 * and the deny set that led here (sent with the request, else the emission's
 * record), warning when later interceptors were skipped (`fold_truncated`, §10.3).
 */
export function VerdictDetails({ ticket }: { ticket: InboxTicket }) {
  const v = (ticket.verdict ?? {}) as StoredVerdict;
  const warnings = Array.isArray(v.warnings) ? v.warnings : [];
  const pointers = Object.entries(v.evidence?.verification_pointers ?? {});
  const fold = ticket.fold;
  return (
    <Card title="Why it stopped">
      <div className="space-y-3 text-sm">
        <p className="whitespace-pre-wrap text-slate-900" data-testid="verdict-message">
          {v.message ?? <span className="text-slate-500">The interceptor gave no message.</span>}
        </p>
        {warnings.length > 0 && (
          <ul className="space-y-1" aria-label="Warnings">
            {warnings.map((w, i) => (
              <li
                // biome-ignore lint/suspicious/noArrayIndexKey: warnings have no identity
                key={i}
                className="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-amber-900"
              >
                <span className="font-mono text-xs">{w.reason ?? 'warning'}</span>
                {w.message && <span className="ml-2">{w.message}</span>}
              </li>
            ))}
          </ul>
        )}
        {v.evidence && (
          <div>
            <p className="text-xs font-medium text-slate-500">
              Evidence (pointers shown as text, never fetched)
            </p>
            {v.evidence.artefact && <p className="font-mono text-xs">{v.evidence.artefact}</p>}
            {pointers.length > 0 && (
              <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 font-mono text-xs">
                {pointers.map(([k, uri]) => (
                  <div key={k} className="contents">
                    <dt className="text-slate-500">{k}</dt>
                    <dd className="select-all break-all text-slate-800">{String(uri)}</dd>
                  </div>
                ))}
              </dl>
            )}
          </div>
        )}
        <FoldBlock fold={fold} />
      </div>
    </Card>
  );
}

function FoldBlock({ fold }: { fold: InboxTicket['fold'] }) {
  if (!fold) {
    return (
      <p className="text-xs text-slate-500" data-testid="fold-unknown">
        This host sent no interceptor summary with the request; it arrives with the emission&apos;s
        record, once that is written.
      </p>
    );
  }
  return (
    <div data-testid="deny-set" data-source={fold.source}>
      {fold.foldTruncated && (
        <p
          role="note"
          data-testid="fold-truncated"
          className="mb-2 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-amber-900"
        >
          {fold.skipped === null
            ? 'Later interceptors were skipped'
            : `${fold.skipped} later ${fold.skipped === 1 ? 'interceptor was' : 'interceptors were'} skipped`}{' '}
          (<code className="font-mono">fold_truncated</code>): approving lets the action proceed
          without their verdicts.
        </p>
      )}
      <p className="text-xs font-medium text-slate-500">
        Verdicts{fold.profile ? ` (${fold.profile})` : ''}
        {fold.interceptorsRegistered !== null &&
          `, ${fold.interceptorsRegistered} interceptors registered`}
        {fold.source === 'deny_set' ? ', as the host reported when it asked' : ', from the record'}
      </p>
      {fold.verdicts.length === 0 ? (
        <p className="text-xs text-slate-500">No per-interceptor summary was recorded.</p>
      ) : (
        <table className="mt-1 min-w-full text-xs" data-testid="deny-set-verdicts">
          <caption className="sr-only">Verdicts returned before the approval was asked</caption>
          <thead>
            <tr className="text-left text-slate-500">
              <th scope="col" className="py-0.5 pr-3 font-medium">
                #
              </th>
              <th scope="col" className="py-0.5 pr-3 font-medium">
                Interceptor
              </th>
              <th scope="col" className="py-0.5 pr-3 font-medium">
                Decision
              </th>
              <th scope="col" className="py-0.5 font-medium">
                Reason
              </th>
            </tr>
          </thead>
          <tbody className="font-mono">
            {fold.verdicts.map((s) => {
              const consulted = s.index === fold.consulted;
              return (
                <tr
                  key={s.index}
                  data-consulted={consulted || undefined}
                  className={consulted ? 'bg-indigo-50 text-slate-900' : 'text-slate-700'}
                >
                  <td className="py-0.5 pr-3">{s.index}</td>
                  <td className="break-all py-0.5 pr-3">{s.name ?? '—'}</td>
                  <td className="py-0.5 pr-3 font-semibold">{s.decision}</td>
                  <td className="break-all py-0.5">
                    {s.reason ?? ''}
                    {consulted && (
                      <span className="ml-2 font-sans text-indigo-700">← asked about</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
