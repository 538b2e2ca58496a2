import 'server-only';
import type { ApprovalResolution } from '@checkpoint/agent-hooks';
import { db } from '../db';
import { onTicketEvent, onTicketEventsReconnect, ticketEventsLive } from './events';
import { expireTicket } from './expire';
import { ensureApprovalsRuntime } from './runtime';

export type TicketAnswer =
  | { state: 'resolved'; id: string; status: string; resolution: ApprovalResolution }
  | { state: 'pending'; id: string; expiresAt: Date };

/** Longest single wait an HTTP caller may ask for (the long-poll cap). */
export const MAX_WAIT_MS = 30_000;
/** While Redis is down, waiters read the database this often (±20 %). */
export const FALLBACK_POLL_MS = 1_000;
/**
 * With the subscriber up, pub/sub wakes waiters and they do not poll
 * (issue 17 item 7: 1,000 parked polls cost 471 transactions/s). Every wait
 * reads on entry and HTTP waits are capped at MAX_WAIT_MS, so a lost message
 * costs at most one wait; this slow re-read (±20 %) only bounds longer
 * in-process waits.
 */
export const SAFETY_POLL_MS = 45_000;
/** Re-read intervals vary by this fraction either way, so parked polls never align. */
export const POLL_JITTER = 0.2;

/** `ms` ±POLL_JITTER, uniformly (`random` in [0, 1), as Math.random). */
export function jitteredInterval(ms: number, random: () => number = Math.random): number {
  return Math.round(ms * (1 - POLL_JITTER + 2 * POLL_JITTER * random()));
}

/** How long a parked waiter sleeps before re-reading the ticket, absent a wake-up. */
export function pollIntervalMs(live: boolean = ticketEventsLive()): number {
  return jitteredInterval(live ? SAFETY_POLL_MS : FALLBACK_POLL_MS);
}

type Wake = () => void;
const g = globalThis as unknown as {
  __checkpointWaiters?: Map<string, Set<Wake>>;
  __checkpointWaitersWired?: boolean;
};
const waiters: Map<string, Set<Wake>> = g.__checkpointWaiters ?? new Map();
g.__checkpointWaiters = waiters;

function wire(): void {
  if (g.__checkpointWaitersWired) return;
  g.__checkpointWaitersWired = true;
  onTicketEvent((e) => {
    if (e.type === 'created') return;
    for (const wake of waiters.get(e.ticketId) ?? []) wake();
  });
  // After an outage, messages may have been missed: everyone re-reads. When
  // one starts, everyone re-reads too and switches to polling the database.
  onTicketEventsReconnect(() => {
    for (const set of waiters.values()) for (const wake of set) wake();
  });
}

/**
 * Waits up to `waitMs` for the ticket's resolution. Woken by this process's
 * commits and other instances' (Redis pub/sub); reads the database about
 * every second only while the subscriber is down. A ticket past its deadline is expired on the
 * spot, so a waiting host gets `unresolved` at the deadline even if no
 * scheduler or job ran yet. `hostId` scopes the lookup (another host's ticket is null).
 * State lives in the database only, so a wait survives an app restart: the
 * host simply asks again.
 */
export async function awaitTicket(
  ticketId: string,
  opts: { hostId?: string; waitMs: number; signal?: AbortSignal },
): Promise<TicketAnswer | null> {
  ensureApprovalsRuntime();
  wire();
  const prisma = await db();
  const deadline = Date.now() + Math.max(0, opts.waitMs);
  for (;;) {
    const wake = register(ticketId);
    try {
      const t = await prisma.approvalTicket.findFirst({
        where: opts.hostId ? { id: ticketId, hostId: opts.hostId } : { id: ticketId },
        select: { id: true, status: true, expiresAt: true, resolution: true },
      });
      if (!t) return null;
      if (t.status !== 'pending' && t.resolution) {
        return {
          state: 'resolved',
          id: t.id,
          status: t.status,
          resolution: t.resolution as unknown as ApprovalResolution,
        };
      }
      const now = Date.now();
      if (t.expiresAt.getTime() <= now) {
        await expireTicket(t.id);
        continue;
      }
      if (now >= deadline || opts.signal?.aborted) {
        return { state: 'pending', id: t.id, expiresAt: t.expiresAt };
      }
      const until = Math.min(deadline, t.expiresAt.getTime());
      await wake.wait(Math.min(until - now, pollIntervalMs()), opts.signal);
    } finally {
      wake.dispose();
    }
  }
}

/** Registered before the read, so a commit between read and wait still wakes it. */
function register(ticketId: string) {
  let fire: Wake = () => {};
  let fired = false;
  const wakeFn: Wake = () => {
    fired = true;
    fire();
  };
  let set = waiters.get(ticketId);
  if (!set) {
    set = new Set();
    waiters.set(ticketId, set);
  }
  set.add(wakeFn);
  return {
    wait(ms: number, signal?: AbortSignal): Promise<void> {
      if (fired || ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        fire = done;
        signal?.addEventListener('abort', done, { once: true });
      });
    },
    dispose() {
      set.delete(wakeFn);
      if (set.size === 0 && waiters.get(ticketId) === set) waiters.delete(ticketId);
    },
  };
}
