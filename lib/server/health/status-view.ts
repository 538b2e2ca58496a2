import 'server-only';
import { HEARTBEAT_STALE_MS, type SystemStatus } from './system-status';

/**
 * What /status shows to whom. Where the data lives, the database URL, the
 * worker's host and pid and the housekeeping counts help an operator and an
 * attacker alike: only admins see them. Everyone signed in sees whether the
 * parts are healthy.
 */

/** Health only: states, no locations, names or numbers about the installation. */
export interface HealthView {
  full: false;
  checkedAt: Date;
  database: { ok: boolean };
  /** True when no migration is pending, null when unknown. */
  migrationsCurrent: boolean | null;
  redis: 'online' | 'offline';
  /** The worker's last heartbeat and whether it is recent; null when it never wrote one. */
  worker: { at: Date; alive: boolean } | null;
}

export interface AdminView {
  full: true;
  status: SystemStatus;
}

export type StatusView = HealthView | AdminView;

/** The view of `status` for a viewer; `admin` sees everything but passwords. */
export function statusView(status: SystemStatus, admin: boolean): StatusView {
  if (admin) {
    const location = withoutPassword(status.database.location);
    return { full: true, status: { ...status, database: { ...status.database, location } } };
  }
  const beat = status.worker.heartbeat;
  const at = beat ? new Date(beat.at) : null;
  return {
    full: false,
    checkedAt: status.checkedAt,
    database: { ok: status.database.ok },
    migrationsCurrent: status.migrations === null ? null : status.migrations.pending.length === 0,
    redis: status.queue.redis,
    worker:
      at && !Number.isNaN(at.getTime())
        ? { at, alive: status.checkedAt.getTime() - at.getTime() < HEARTBEAT_STALE_MS }
        : null,
  };
}

/**
 * A location with any URL password masked. dbInfo() already leaves it out;
 * this keeps it out of the page should a location ever carry one.
 */
export function withoutPassword(location: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return location;
  try {
    const u = new URL(location);
    if (!u.password) return location;
    u.password = '';
    return u.toString();
  } catch {
    // Unparseable: mask everything between the scheme and the last "@".
    return location.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1***@');
  }
}
