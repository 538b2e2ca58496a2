import 'server-only';
import type { ApprovalResolution } from '@checkpoint/agent-hooks';
import { expireTicket } from './expire';
import { ensureApprovalsRuntime } from './runtime';
import { readWaitedTicket } from './ticket-reads';
import { addWaiter } from './waiters';

export type TicketAnswer =
  | {
      state: 'resolved';
      id: string;
      status: string;
      resolution: ApprovalResolution;
      /** The decision's signed receipt when it is stored already (else null: issue it). */
      receipt: string | null;
    }
  | { state: 'pending'; id: string; expiresAt: Date };

/** Longest single wait an HTTP caller may ask for (the long-poll cap). */
export const MAX_WAIT_MS = 30_000;

/**
 * Waits up to `waitMs` for the ticket's resolution. Woken by this process's
 * commits and other instances' (Redis pub/sub), and by the process's one
 * batched check of all waited-for tickets (waiters.ts: every second while
 * the subscriber is down, every 30 s otherwise); a waiter never reads on a
 * timer of its own. Every answer is read from the ticket's row. A ticket
 * past its deadline is expired on the spot, so a waiting host gets
 * `unresolved` at the deadline even if no scheduler or job ran yet.
 * `hostId` scopes the lookup (another host's ticket is null). State lives in
 * the database only, so a wait survives an app restart: the host simply asks
 * again.
 */
export async function awaitTicket(
  ticketId: string,
  opts: { hostId?: string; waitMs: number; signal?: AbortSignal },
): Promise<TicketAnswer | null> {
  ensureApprovalsRuntime();
  const deadline = Date.now() + Math.max(0, opts.waitMs);
  for (;;) {
    const wake = register(ticketId);
    try {
      // Coalesced with the other waiters' reads of this turn (ticket-reads.ts).
      const t = await readWaitedTicket(ticketId);
      if (!t || (opts.hostId !== undefined && t.hostId !== opts.hostId)) return null;
      if (t.status !== 'pending' && t.resolution) {
        return {
          state: 'resolved',
          id: t.id,
          status: t.status,
          resolution: t.resolution as unknown as ApprovalResolution,
          receipt: t.receipt,
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
      await wake.wait(until - now, opts.signal);
    } finally {
      wake.dispose();
    }
  }
}

/** Registered before the read, so a commit between read and wait still wakes it. */
function register(ticketId: string) {
  let fire: () => void = () => {};
  let fired = false;
  const dispose = addWaiter(ticketId, () => {
    fired = true;
    fire();
  });
  return {
    wait(ms: number, signal?: AbortSignal): Promise<void> {
      if (fired || ms <= 0 || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          fire = () => {};
          resolve();
        }
        fire = done;
        signal?.addEventListener('abort', done, { once: true });
      });
    },
    dispose,
  };
}
