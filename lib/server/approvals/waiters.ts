import 'server-only';
import { db } from '../db';
import { moduleLogger } from '../logger';
import { onTicketEvent, onTicketEventsReconnect, ticketEventsLive } from './events';

/**
 * The parked waiters of this process, by ticket id, and the one safety check
 * they share. Pub/sub (events.ts) wakes a ticket's waiters when it is decided
 * or expired anywhere; for what pub/sub can miss (Redis down, a message lost
 * around a reconnect) one statement per process per interval asks which of
 * the waited-for tickets are no longer pending (or gone), and wakes those:
 * every second while the subscriber is down, as a slow backstop while it is
 * up (issue 16 item 5: a re-read per waiter cost 1,382 transactions/s at
 * 5,000 parked polls). A wake-up only makes the waiter re-read its own row:
 * the answer always comes from a committed row, never from a message or
 * from this check.
 */

/** While the subscriber is down, the batched check runs this often. */
export const FALLBACK_CHECK_MS = 1_000;
/** With pub/sub live, the batched check still runs this often (a lost message). */
export const BACKSTOP_CHECK_MS = 30_000;

type Wake = () => void;

interface WaitersState {
  byTicket: Map<string, Set<Wake>>;
  wired: boolean;
  timer?: NodeJS.Timeout;
  /** When the armed timer fires (epoch ms). */
  dueAt: number;
  /** A check is in flight; another is not started meanwhile. */
  checking: boolean;
  /** Statements the batched check has issued (tests, metrics). */
  statements: number;
}

const g = globalThis as unknown as { __checkpointWaiterSet?: WaitersState };
const state: WaitersState = g.__checkpointWaiterSet ?? {
  byTicket: new Map(),
  wired: false,
  dueAt: 0,
  checking: false,
  statements: 0,
};
g.__checkpointWaiterSet = state;

const log = moduleLogger('ticket-waiters');

/** The interval of the batched check right now. */
export function safetyCheckIntervalMs(live: boolean = ticketEventsLive()): number {
  return live ? BACKSTOP_CHECK_MS : FALLBACK_CHECK_MS;
}

/** How many statements the batched check has issued in this process. */
export function safetyCheckStatements(): number {
  return state.statements;
}

/** Tickets with at least one parked waiter in this process. */
export function waitedTicketCount(): number {
  return state.byTicket.size;
}

function wire(): void {
  if (state.wired) return;
  state.wired = true;
  onTicketEvent((e) => {
    if (e.type === 'created') return;
    for (const wake of state.byTicket.get(e.ticketId) ?? []) wake();
  });
  // The subscriber came up (messages may have been missed while it was
  // down: check now, then slowly) or went down (check every second).
  onTicketEventsReconnect(() => {
    disarm();
    if (ticketEventsLive()) void check();
    else arm();
  });
}

/**
 * Adds a waiter for `ticketId`; `wake` runs when the ticket may have left
 * `pending`. Returns the function that removes it. Register before reading
 * the ticket, so a commit between the read and the wait still wakes it.
 */
export function addWaiter(ticketId: string, wake: Wake): () => void {
  wire();
  let set = state.byTicket.get(ticketId);
  if (!set) {
    set = new Set();
    state.byTicket.set(ticketId, set);
  }
  set.add(wake);
  arm();
  return () => {
    set.delete(wake);
    if (set.size === 0 && state.byTicket.get(ticketId) === set) state.byTicket.delete(ticketId);
    if (state.byTicket.size === 0) disarm();
  };
}

/** Arms the check's timer unless armed (or a check is running: it re-arms). */
function arm(): void {
  if (state.timer || state.checking || state.byTicket.size === 0) return;
  const ms = safetyCheckIntervalMs();
  state.dueAt = Date.now() + ms;
  state.timer = setTimeout(() => {
    state.timer = undefined;
    void check();
  }, ms);
  // Parked waits never keep a process alive on their own.
  state.timer.unref();
}

function disarm(): void {
  if (state.timer) clearTimeout(state.timer);
  state.timer = undefined;
}

/**
 * One statement for every ticket waited on here: `id = ANY($waiting) AND
 * status <> 'pending'`; the waiters of the tickets it returns are woken.
 * A failed check is logged and retried at the next interval: the waiters
 * keep waiting (fail closed) until their own deadlines.
 */
export async function check(): Promise<void> {
  if (state.checking) return;
  const ids = [...state.byTicket.keys()];
  if (ids.length === 0) return;
  state.checking = true;
  try {
    const prisma = await db();
    state.statements++;
    // `id = ANY($waiting) AND status <> 'pending'`, written so that a ticket
    // gone altogether (its host deleted) wakes its waiters too: they read
    // nothing and answer 404 instead of waiting out the deadline.
    const rows = await prisma.$queryRaw<{ id: string }[]>`
      SELECT w."id"::text AS "id" FROM unnest(${ids}::uuid[]) AS w("id")
      WHERE NOT EXISTS (
        SELECT 1 FROM "ApprovalTicket" t WHERE t."id" = w."id" AND t."status" = 'pending')`;
    for (const { id } of rows) for (const wake of state.byTicket.get(id) ?? []) wake();
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'waiter check failed');
  } finally {
    state.checking = false;
    arm();
  }
}
