import Link from 'next/link';
import { HostFailureBadge } from '@/app/components/audit/badges';
import { Time } from '@/app/components/time';
import type { NearbyHostFailure } from '@/lib/server/audit/timeline';

/** The host's own failures around the session, set apart from its timeline. */
export function HostFailures({ failures, now }: { failures: NearbyHostFailure[]; now: string }) {
  if (failures.length === 0) return null;
  return (
    <section
      aria-label="Host failures while this session ran"
      className="mt-3 rounded-lg border border-fuchsia-200 bg-fuchsia-50/50 px-3 py-2 text-sm"
      data-testid="host-failures"
    >
      <p className="text-fuchsia-900">
        <HostFailureBadge /> The host recorded{' '}
        {failures.length === 1 ? 'a failure' : `${failures.length} failures`} of its own while this
        session ran. They name no session, so they may or may not belong to it.
      </p>
      <ul className="mt-1 space-y-0.5 text-xs">
        {failures.map((f) => (
          <li key={f.id}>
            <Link href={`/audit/records/${f.id}`} className="text-indigo-700 hover:underline">
              <Time value={f.receivedAt} now={now} />
            </Link>{' '}
            <span className="font-mono">{f.interceptionPoint}</span>{' '}
            <code className="text-fuchsia-800">{f.reason ?? '—'}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}
