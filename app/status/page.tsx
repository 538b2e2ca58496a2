import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Role } from '@/lib/server/auth/roles';
import { requireUser } from '@/lib/server/auth/session';
import { type HealthView, statusView } from '@/lib/server/health/status-view';
import {
  getSystemStatus,
  HEARTBEAT_STALE_MS,
  type SystemStatus,
} from '@/lib/server/health/system-status';
import type { LaneCounts } from '@/lib/server/queue/queues';
import { Badge, Card, Row, When } from './parts';
import { TransparencyLogStatus } from './transparency-log';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Status' };

/**
 * /status: every signed-in user sees whether the parts are healthy; only
 * admins see where the data lives, the database URL (never its password),
 * the worker's host and pid and the housekeeping counts.
 */
export default async function StatusPage() {
  const user = await requireUser();
  const view = statusView(await getSystemStatus(), user.roles.includes(Role.admin));
  return view.full ? <FullStatus s={view.status} /> : <HealthOnly v={view} />;
}

function Frame({ checkedAt, children }: { checkedAt: Date; children: ReactNode }) {
  return (
    <div className="mx-auto max-w-4xl space-y-4 p-6">
      <header className="flex items-baseline justify-between">
        <h1 className="text-lg font-semibold text-gray-900">System status</h1>
        <p className="text-xs text-gray-500">
          checked <When at={checkedAt} now={checkedAt.getTime()} />
        </p>
      </header>
      {children}
    </div>
  );
}

/** Health only, for everyone but admins. */
function HealthOnly({ v }: { v: HealthView }) {
  const now = v.checkedAt.getTime();
  return (
    <Frame checkedAt={v.checkedAt}>
      <div className="grid gap-4 md:grid-cols-2" data-testid="status-health">
        <Card title="Health">
          <Row label="Database">
            <Badge tone={v.database.ok ? 'ok' : 'bad'}>
              {v.database.ok ? 'online' : 'unreachable'}
            </Badge>
          </Row>
          <Row label="Migrations">
            {v.migrationsCurrent === null ? (
              <Badge tone="bad">unknown</Badge>
            ) : v.migrationsCurrent ? (
              'up to date'
            ) : (
              <Badge tone="bad">pending</Badge>
            )}
          </Row>
          <Row label="Queue (Redis)">
            <Badge tone={v.redis === 'online' ? 'ok' : 'warn'}>{v.redis}</Badge>
          </Row>
          <Row label="Worker">
            {v.worker ? (
              <span className="space-x-2">
                <Badge tone={v.worker.alive ? 'ok' : 'bad'}>
                  {v.worker.alive ? 'alive' : 'silent'}
                </Badge>
                <When at={v.worker.at} now={now} />
              </span>
            ) : (
              <Badge tone="bad">never seen</Badge>
            )}
          </Row>
        </Card>
      </div>
      <p className="text-xs text-gray-500">Details are shown to admins.</p>
    </Frame>
  );
}

/** Everything, for admins (passwords never: see statusView). */
function FullStatus({ s }: { s: SystemStatus }) {
  const now = s.checkedAt.getTime();
  const beat = s.worker.heartbeat;
  const beatAt = beat ? new Date(beat.at) : null;
  const beatFresh = beatAt !== null && now - beatAt.getTime() < HEARTBEAT_STALE_MS;
  const pending = s.migrations?.pending ?? [];

  return (
    <Frame checkedAt={s.checkedAt}>
      <div className="grid gap-4 md:grid-cols-2" data-testid="status-full">
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
          <Row label="Jobs waiting (due)">{s.queue.waiting}</Row>
          <Row label="Scheduled for later">
            {s.queue.scheduled}
            {s.queue.outboxScheduled > 0 ? ` (${s.queue.outboxScheduled} in the outbox)` : ''}
          </Row>
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
          {beat?.lanes ? (
            <Row label="Lanes it consumes">
              <code className="text-xs">{beat.lanes.join(', ') || 'none'}</code>
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
      {s.queue.lanes ? (
        <LaneTable lanes={s.queue.lanes} seen={s.worker.lanes ?? {}} now={now} />
      ) : null}
      {s.database.ok ? <TransparencyLogStatus now={now} /> : null}
    </Frame>
  );
}

/** Whether some worker consumes the lane (WORKER_LANES splits them over processes). */
function LaneWorker({ beat, now }: { beat?: { at: string }; now: number }) {
  if (!beat) return <Badge tone="bad">none seen</Badge>;
  const fresh = now - new Date(beat.at).getTime() < HEARTBEAT_STALE_MS;
  return <Badge tone={fresh ? 'ok' : 'bad'}>{fresh ? 'alive' : 'silent'}</Badge>;
}

/**
 * One row per lane (its own queue and worker slots): which kind of work is
 * backing up, and whether any worker consumes it. The pre-lane queue only
 * while it still holds jobs.
 */
function LaneTable({
  lanes,
  seen,
  now,
}: {
  lanes: LaneCounts[];
  seen: NonNullable<SystemStatus['worker']['lanes']>;
  now: number;
}) {
  const rows = lanes.filter(
    (l) => l.queue !== 'legacy' || l.waiting + l.delayed + l.active + l.failed > 0,
  );
  const num = 'px-2 py-1 text-right tabular-nums';
  return (
    <section className="rounded-lg border border-gray-200 bg-white p-4" data-testid="status-lanes">
      <h2 className="mb-2 text-sm font-semibold text-gray-700">Queue lanes</h2>
      <table className="w-full text-sm">
        <thead className="text-xs text-gray-500">
          <tr>
            <th className="px-2 py-1 text-left font-normal">Lane</th>
            <th className={`${num} font-normal`}>Waiting (due)</th>
            <th className={`${num} font-normal`}>Scheduled</th>
            <th className={`${num} font-normal`}>Active</th>
            <th className={`${num} font-normal`}>Failed</th>
            <th className="px-2 py-1 text-right font-normal">Worker</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((l) => (
            <tr key={l.queue} className="border-t border-gray-100">
              <td className="px-2 py-1">
                <code className="text-xs">{l.queue === 'legacy' ? 'pre-lane queue' : l.queue}</code>
              </td>
              <td className={num}>{l.waiting}</td>
              <td className={num}>{l.delayed}</td>
              <td className={num}>{l.active}</td>
              <td className={num}>{l.failed > 0 ? <Badge tone="warn">{l.failed}</Badge> : 0}</td>
              <td className="px-2 py-1 text-right">
                {l.queue === 'legacy' ? null : <LaneWorker beat={seen[l.queue]} now={now} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
