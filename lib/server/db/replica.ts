import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { DbHandle, DbTarget } from '@/lib/server/db/open';

/**
 * The optional read replica that audit reads use (DATABASE_REPLICA_URL,
 * docs/scaling.md). Searching a million records is the heaviest read the
 * app does; on a replica it never competes with ingest and decisions on the
 * primary. Only reads go there, and only those that tolerate replication
 * lag: the audit browser, session timelines, exports and the overview.
 *
 * A replica that does not answer is not an outage of the app: audit reads
 * fall back to the primary until a later check finds the replica back. The
 * state is checked at most every `recheckMs`, and /api/ready reports it.
 */

export type ReplicaState = 'not_configured' | 'ok' | 'unreachable';

/** The process's router (db/audit-db.ts makes it; db.ts : closeDb closes it). */
export const replicaSlot = globalThis as typeof globalThis & {
  __checkpointReplica?: ReplicaRouter;
};

export interface ReplicaDeps {
  target: DbTarget | undefined;
  open: (target: DbTarget) => Promise<DbHandle>;
  primary: () => Promise<PrismaClient>;
  /** How long a health check may take before the replica counts as unreachable. */
  pingTimeoutMs?: number;
  /** A known state is reused this long; then the next read checks again. */
  recheckMs?: number;
  now?: () => number;
  /** Called when the state changes (logging). */
  onChange?: (state: ReplicaState) => void;
}

export class ReplicaRouter {
  private handle?: Promise<DbHandle>;
  private state: ReplicaState;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking?: Promise<void>;
  private readonly pingTimeoutMs: number;
  private readonly recheckMs: number;
  private readonly now: () => number;

  constructor(private readonly deps: ReplicaDeps) {
    this.state = deps.target ? 'unreachable' : 'not_configured';
    this.pingTimeoutMs = deps.pingTimeoutMs ?? 1_000;
    this.recheckMs = deps.recheckMs ?? 10_000;
    this.now = deps.now ?? Date.now;
  }

  /**
   * The client audit reads use: the replica while it answers, else the
   * primary. The first call waits for one health check (bounded by the
   * ping timeout); later ones use the last state and refresh it in the
   * background once it is older than `recheckMs`.
   */
  async client(): Promise<PrismaClient> {
    if (!this.deps.target) return this.deps.primary();
    const first = this.checkedAt === Number.NEGATIVE_INFINITY;
    if (this.now() - this.checkedAt >= this.recheckMs) {
      const check = this.check();
      if (first) await check;
    }
    if (this.state === 'ok' && this.handle) return (await this.handle).client;
    return this.deps.primary();
  }

  /** The current state, checked now when it is stale (for /api/ready). */
  async status(): Promise<ReplicaState> {
    if (!this.deps.target) return 'not_configured';
    if (this.now() - this.checkedAt >= this.recheckMs) await this.check();
    return this.state;
  }

  async close(): Promise<void> {
    const opening = this.handle;
    this.handle = undefined;
    const h = await opening?.catch(() => undefined);
    await h?.close();
  }

  private check(): Promise<void> {
    this.checking ??= this.ping()
      .then(async (ok) => {
        // A failed pool is dropped: the next check opens a fresh one.
        if (!ok) await this.close();
        this.set(ok ? 'ok' : 'unreachable');
      })
      .finally(() => {
        this.checkedAt = this.now();
        this.checking = undefined;
      });
    return this.checking;
  }

  private async ping(): Promise<boolean> {
    const target = this.deps.target;
    if (!target) return false;
    if (!this.handle) {
      const opening = this.deps.open(target);
      this.handle = opening;
      opening.catch(() => {
        if (this.handle === opening) this.handle = undefined;
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.pingTimeoutMs);
    });
    const opening = this.handle;
    const ping = (async () => {
      const h = await opening;
      await h.client.$queryRaw`SELECT 1`;
      return true;
    })().catch(() => false);
    try {
      return await Promise.race([ping, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private set(state: ReplicaState): void {
    if (state === this.state) return;
    this.state = state;
    this.deps.onChange?.(state);
  }
}
