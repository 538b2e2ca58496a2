import { db } from '@/lib/server/db';
import { unauthenticSigningKeys } from '@/lib/server/signing/authentic';
import {
  latestLogVerification,
  logVerificationRunning,
} from '@/lib/server/transparency/verify-run';
import { Badge, Card, Row, When } from './parts';
import { VerifyLogNow } from './verify-now';

/**
 * /status, admins: the background verifier's latest run over the whole
 * transparency log (issue 13 item 4), its findings, and "Verify now".
 */
export async function TransparencyLogStatus({ now }: { now: number }) {
  const prisma = await db();
  const [last, running, planted] = await Promise.all([
    latestLogVerification(prisma),
    logVerificationRunning(prisma),
    unauthenticSigningKeys(prisma),
  ]);
  return (
    <section id="transparency-log" data-testid="status-transparency-log" className="space-y-3">
      <Card title="Transparency log">
        <Row label="Last verification">
          {last ? (
            <span className="space-x-2">
              <Badge tone={last.ok ? 'ok' : 'bad'}>{last.ok ? 'verified' : 'FAILED'}</Badge>
              <When at={last.finishedAt} now={now} />
            </span>
          ) : (
            'not yet'
          )}
        </Row>
        {planted.length > 0 ? (
          <Row label="Signing keys">
            <ul data-testid="unauthentic-signing-keys" className="space-y-1">
              {planted.map((k) => (
                <li key={k.kid}>
                  <Badge tone="bad">not authentic</Badge> <code className="text-xs">{k.kid}</code>:{' '}
                  {k.reason}. Neither published nor trusted.
                </li>
              ))}
            </ul>
          </Row>
        ) : null}
        {running ? (
          <Row label="Now">
            <Badge tone="warn">a verification is running</Badge>
          </Row>
        ) : null}
        {last ? (
          <>
            <Row label="Leaves checked">
              {last.checkedLeaves} of {last.size} ({last.trigger})
            </Row>
            <Row label="Findings">
              {last.failureCount > 0 ? (
                <Badge tone="bad">{last.failureCount} failing</Badge>
              ) : (
                '0 failing'
              )}
              {last.findingCount > last.failureCount
                ? ` · ${last.findingCount - last.failureCount} informational`
                : ''}
            </Row>
            {last.firstFailure ? (
              <Row label="First failure">
                <span data-testid="log-first-failure">
                  <strong>{last.firstFailure.problem}</strong>: {last.firstFailure.detail}
                </span>
              </Row>
            ) : null}
          </>
        ) : null}
        <div className="pt-3">
          <VerifyLogNow />
        </div>
      </Card>
      {last && last.findings.length > 0 ? (
        <details className="rounded-lg border border-gray-200 bg-white p-4 text-sm">
          <summary className="cursor-pointer font-semibold text-gray-700">
            Findings of the last run ({last.findings.length}
            {last.findingCount > last.findings.length ? ` of ${last.findingCount}` : ''})
          </summary>
          <ul className="mt-2 space-y-1" data-testid="log-findings">
            {last.findings.map((f, i) => (
              // Findings have no id; their order is the walk's.
              // biome-ignore lint/suspicious/noArrayIndexKey: a stored, never reordered list
              <li key={i} data-problem={f.problem}>
                <code className="text-xs">{f.problem}</code> {f.detail}
                {f.recordId ? (
                  <>
                    {' '}
                    <a className="underline" href={`/audit/records/${f.recordId}`}>
                      record {f.recordId}
                    </a>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
