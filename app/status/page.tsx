import { getSystemStatus, HEARTBEAT_STALE_MS } from '@/lib/server/health/system-status';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Status' };

type Tone = 'ok' | 'warn' | 'bad';
const TONE: Record<Tone, string> = {
  ok: 'bg-emerald-100 text-emerald-800',
  warn: 'bg-amber-100 text-amber-800',
  bad: 'bg-red-100 text-red-800',
};

function Badge({ tone, children }: { tone: Tone; children: React.ReactNode }) {
  return (
    <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${TONE[tone]}`}>
      {children}
    </span>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex items-baseline justify-between gap-4 border-b border-gray-100 py-2 last:border-0">
      <dt className="text-sm text-gray-500">{label}</dt>
      <dd className="text-right text-sm text-gray-900">{children}</dd>
    </div>
  );
}

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="rounded-lg border border-gray-200 bg-white p-4">
      <h2 className="mb-2 text-sm font-semibold text-gray-700">{title}</h2>
      <dl>{children}</dl>
    </section>
  );
}

function When({ at, now }: { at: Date; now: number }) {
  const s = Math.round((now - at.getTime()) / 1000);
  const rel =
    s < 60
      ? `${s} s ago`
      : s < 3600
        ? `${Math.round(s / 60)} min ago`
        : `${Math.round(s / 3600)} h ago`;
  return (
    <time dateTime={at.toISOString()} title={at.toISOString()}>
      {rel}{' '}
      <span className="text-gray-400">({at.toISOString().replace('T', ' ').slice(0, 19)} UTC)</span>
    </time>
  );
}

export default async function StatusPage() {
  const s = await getSystemStatus();
  const now = s.checkedAt.getTime();
  const beat = s.worker.heartbeat;
  const beatAt = beat ? new Date(beat.at) : null;
  const beatFresh = beatAt !== null && now - beatAt.getTime() < HEARTBEAT_STALE_MS;
  const pending = s.migrations?.pending ?? [];

  return (
    <div className="mx-auto max-w-4xl space-y-4 p-6">
      <header className="flex items-baseline justify-between">
        <h1 className="text-lg font-semibold text-gray-900">System status</h1>
        <p className="text-xs text-gray-500">
          checked <When at={s.checkedAt} now={now} />
        </p>
      </header>
      <div className="grid gap-4 md:grid-cols-2">
        <Card title="Database">
          <Row label="State">
            <Badge tone={s.database.ok ? 'ok' : 'bad'}>
              {s.database.ok ? 'online' : 'unreachable'}
            </Badge>
          </Row>
          <Row label="Kind">
            {s.database.kind === 'pglite' ? 'embedded (PGlite)' : 'PostgreSQL'}
          </Row>
          <Row label="Location">
            <code className="break-all text-xs">{s.database.location}</code>
          </Row>
          <Row label="Migrations">
            {s.migrations === null ? (
              <Badge tone="bad">unknown</Badge>
            ) : pending.length === 0 ? (
              <span>{s.migrations.applied} applied, none pending</span>
            ) : (
              <Badge tone="bad">
                {pending.length} pending: {pending.join(', ')}
              </Badge>
            )}
          </Row>
        </Card>
        <Card title="Queue">
          <Row label="Redis">
            <Badge tone={s.queue.redis === 'online' ? 'ok' : 'warn'}>{s.queue.redis}</Badge>
          </Row>
          <Row label="Jobs waiting">{s.queue.waiting}</Row>
          <Row label="Failed jobs">
            {s.queue.failed > 0 ? <Badge tone="warn">{s.queue.failed}</Badge> : 0}
          </Row>
          <Row label="Outbox backlog">
            {s.queue.outboxPending > 0 && s.queue.redis === 'offline' ? (
              <Badge tone="warn">{s.queue.outboxPending} waiting for Redis</Badge>
            ) : (
              s.queue.outboxPending
            )}
          </Row>
        </Card>
        <Card title="Worker">
          <Row label="Runs in this process">{s.worker.inThisProcess ? 'yes' : 'no'}</Row>
          <Row label="Last heartbeat">
            {beatAt ? (
              <span className="space-x-2">
                <Badge tone={beatFresh ? 'ok' : 'bad'}>{beatFresh ? 'alive' : 'silent'}</Badge>
                <When at={beatAt} now={now} />
              </span>
            ) : (
              <Badge tone="bad">never</Badge>
            )}
          </Row>
          {beat ? (
            <Row label="Worker">
              <code className="text-xs">
                {beat.host} pid {beat.pid}
              </code>
            </Row>
          ) : null}
        </Card>
        <Card title="Housekeeping">
          <Row label="Last run">
            {s.housekeeping ? <When at={s.housekeeping.at} now={now} /> : 'not yet'}
          </Row>
          {s.housekeeping ? (
            <>
              <Row label="Sign-in attempts removed">
                {String(s.housekeeping.details.signInAttemptsDeleted ?? 0)}
              </Row>
              <Row label="Outbox rows removed">
                {String(s.housekeeping.details.outboxEventsDeleted ?? 0)}
              </Row>
            </>
          ) : null}
        </Card>
      </div>
    </div>
  );
}
