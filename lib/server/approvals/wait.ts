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
/** While Redis is down, waiters read the database this often. */
export const FALLBACK_POLL_MS = 1_000;
/** Even with Redis up, a waiter re-reads the database this often (a lost message costs seconds). */
const SAFETY_POLL_MS = 5_000;

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
  // After an outage, messages may have been missed: everyone re-reads.
  onTicketEventsReconnect(() => {
    for (const set of waiters.values()) for (const wake of set) wake();
  });
}

/**
 * Waits up to `waitMs` for the ticket's resolution. Woken by this process's
 * commits and other instances' (Redis pub/sub); reads the database every
 * second while Redis is down. A ticket past its deadline is expired on the
 * spot, so a waiting host gets `unresolved` at the deadline even if no job or
 * sweep ran yet. `hostId` scopes the lookup (another host's ticket is null).
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
      const slice = ticketEventsLive() ? SAFETY_POLL_MS : FALLBACK_POLL_MS;
      await wake.wait(Math.min(until - now, slice), opts.signal);
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
