import { Time } from '@/app/components/time';
import type { SelfTestResult } from '@/lib/server/webhooks/self-test';

const LABELS: Record<string, string> = {
  approve: 'Approve (AH-CTK-056)',
  reject: 'Reject (AH-CTK-057)',
  unresolved: 'Unresolved (AH-CTK-058)',
  identity_echo: 'Null identity echoes null (AH-CTK-073)',
};

/** The last self-test, case by case. */
export function SelfTestResultView({
  result,
  now,
}: {
  result: SelfTestResult | null;
  now: string;
}) {
  if (!result) return <p className="text-sm text-slate-500">No self-test yet.</p>;
  return (
    <section
      aria-label="Self-test result"
      data-testid="self-test-result"
      data-ok={String(result.ok)}
    >
      <p className="text-sm font-medium">
        Self-test{' '}
        {result.ok ? (
          <span className="text-emerald-700">passed</span>
        ) : (
          <span className="text-red-700">failed{result.echoOk ? '' : ': identity not echoed'}</span>
        )}{' '}
        <span className="text-xs font-normal text-slate-500">
          <Time value={result.at} now={now} />
        </span>
      </p>
      <ul className="mt-1 space-y-0.5 text-sm">
        {result.cases.map((c) => (
          <li key={c.name} data-case={c.name} data-ok={String(c.ok)}>
            <span aria-hidden className={c.ok ? 'text-emerald-600' : 'text-red-600'}>
              {c.ok ? '✓' : '✗'}
            </span>{' '}
            {LABELS[c.name] ?? c.name}: <code className="text-xs">{c.detail}</code>
            {c.ok && c.matched === false && (
              <span className="ml-1 text-xs text-amber-700">
                (not the outcome the case asked for)
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
