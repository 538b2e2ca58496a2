import Link from 'next/link';
import { db } from '@/lib/server/db';
import { latestLogVerification } from '@/lib/server/transparency/verify-run';

/**
 * Admins only (the layout decides): a banner on every page while the latest
 * run of the transparency log verifier failed, naming its first failure
 * (issue 13 item 4). Quiet when the run passed, before the first run, and
 * when the database cannot be read (/status explains an outage).
 */
export async function LogIntegrityAlert() {
  const last = await db()
    .then(latestLogVerification)
    .catch(() => null);
  if (!last || last.ok || !last.firstFailure) return null;
  const f = last.firstFailure;
  return (
    <div
      role="alert"
      data-testid="log-integrity-alert"
      className="border-b border-red-300 bg-red-50"
    >
      <p className="mx-auto max-w-7xl px-4 py-2 text-sm text-red-900">
        <strong>Transparency log verification failed</strong> ({last.failureCount}{' '}
        {last.failureCount === 1 ? 'finding' : 'findings'},{' '}
        {last.finishedAt.toISOString().replace('T', ' ').slice(0, 19)} UTC): {f.problem} —{' '}
        {f.detail}{' '}
        <Link href="/status#transparency-log" className="font-medium underline">
          Details on /status
        </Link>
      </p>
    </div>
  );
}
