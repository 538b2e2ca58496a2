import { describe, expect, it } from 'vitest';
import { statusView, withoutPassword } from '@/lib/server/health/status-view';
import type { SystemStatus } from '@/lib/server/health/system-status';

const checkedAt = new Date('2026-01-02T03:04:05Z');

function status(location: string): SystemStatus {
  return {
    database: { ok: true, kind: 'postgres', location },
    migrations: { applied: 12, pending: ['20260101000000_x'] },
    queue: {
      redis: 'online',
      waiting: 3,
      scheduled: 0,
      outboxScheduled: 0,
      outboxPending: 1,
      failed: 2,
    },
    worker: {
      inThisProcess: true,
      heartbeat: { at: '2026-01-02T03:04:00Z', host: 'worker-7', pid: 4242, queue: 'jobs' },
    },
    housekeeping: { at: checkedAt, details: { signInAttemptsDeleted: 5 } },
    checkedAt,
  };
}

describe('/status for someone who is not an admin', () => {
  it('shows health only: no location, host, pid or counts', () => {
    const v = statusView(status('/srv/checkpoint/.data/pglite'), false);
    expect(v).toEqual({
      full: false,
      checkedAt,
      database: { ok: true },
      migrationsCurrent: false,
      redis: 'online',
      worker: { at: new Date('2026-01-02T03:04:00Z'), alive: true },
    });
    const text = JSON.stringify(v);
    for (const secret of ['/srv/checkpoint', 'worker-7', '4242', '20260101000000_x']) {
      expect(text).not.toContain(secret);
    }
  });

  it('reports a worker that never beat as unseen, and unknown migrations as unknown', () => {
    const s = status('/x');
    const v = statusView(
      { ...s, migrations: null, worker: { ...s.worker, heartbeat: null } },
      false,
    );
    expect(v).toMatchObject({ full: false, migrationsCurrent: null, worker: null });
  });
});

describe('/status for an admin', () => {
  it('shows everything', () => {
    const v = statusView(status('/srv/checkpoint/.data/pglite'), true);
    expect(v.full).toBe(true);
    if (!v.full) return;
    expect(v.status.database.location).toBe('/srv/checkpoint/.data/pglite');
    expect(v.status.worker.heartbeat?.pid).toBe(4242);
  });

  it('never shows a database password, even if a location carried one', () => {
    const v = statusView(status('postgresql://app:s3cret@db.internal:5432/checkpoint'), true);
    if (!v.full) throw new Error('expected the full view');
    expect(v.status.database.location).toBe('postgresql://app@db.internal:5432/checkpoint');
  });
});

describe('withoutPassword', () => {
  it.each([
    ['postgresql://u:pw@h/db', 'postgresql://u@h/db'],
    ['postgresql://u@h/db', 'postgresql://u@h/db'],
    ['/var/lib/checkpoint', '/var/lib/checkpoint'],
    ['postgresql://u:p%40w@[bad/db', 'postgresql://***@[bad/db'],
  ])('%s → %s', (input, want) => {
    expect(withoutPassword(input)).toBe(want);
  });
});
