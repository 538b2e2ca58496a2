import 'server-only';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { config } from '../config';
import { moduleLogger } from '../logger';
import { closeRedis, createRedisConnection } from '../queue/connection';

/**
 * Ticket lifecycle events, in-process and across app instances. A commit in
 * this process calls `publishTicketEvent`, which tells local listeners at once
 * and publishes on Redis (`checkpoint:tickets`); the subscriber relays other
 * instances' events to local listeners. Redis is a wake-up signal only: the
 * database holds the truth; while the subscriber is down, one batched check
 * per process (waiters.ts) stands in for the messages.
 */

export type TicketEventType = 'created' | 'decided' | 'expired';
export type TicketEvent = {
  type: TicketEventType;
  ticketId: string;
  hostId: string;
  /** `created`: the deadline (ISO 8601), so every instance's expiry scheduler re-arms without a query. */
  expiresAt?: string;
};
export type TicketEventListener = (e: TicketEvent) => void;

export const TICKET_EVENTS_CHANNEL = 'checkpoint:tickets';

interface EventsState {
  instanceId: string;
  listeners: Set<TicketEventListener>;
  redisUrl?: string;
  channel: string;
  subscriber?: Redis;
  publisher?: Redis;
  /** Messages published before the publisher was ready, oldest first (issue 17 item 7). */
  pending: string[];
  /** Messages dropped from a full `pending` since the last warning. */
  dropped: number;
  /** Called whenever the subscriber (re)connects or loses its connection. */
  reconnectHooks: Set<() => void>;
}

const g = globalThis as unknown as { __checkpointTicketEvents?: EventsState };
const state: EventsState = g.__checkpointTicketEvents ?? {
  instanceId: randomUUID(),
  listeners: new Set(),
  channel: TICKET_EVENTS_CHANNEL,
  pending: [],
  dropped: 0,
  reconnectHooks: new Set(),
};
// A state object from before this field existed (dev hot reload).
state.pending ??= [];
state.dropped ??= 0;
g.__checkpointTicketEvents = state;

/** Most messages kept while the publisher is not ready; the oldest go first. */
export const MAX_PENDING_TICKET_EVENTS = 1_000;

const log = moduleLogger('ticket-events');
const TYPES: readonly string[] = ['created', 'decided', 'expired'];

/**
 * Subscribes to ticket events (local commits and other instances'). Returns
 * the unsubscribe function. A throwing listener is logged and never affects
 * the others or the commit that caused the event.
 */
export function onTicketEvent(listener: TicketEventListener): () => void {
  ensureSubscriber();
  state.listeners.add(listener);
  return () => {
    state.listeners.delete(listener);
  };
}

/**
 * After a commit: local listeners now, other instances through Redis. Never
 * blocks: while the publisher is not ready (first use, reconnect) messages
 * wait in a bounded queue and go out in order once it is.
 */
export function publishTicketEvent(e: TicketEvent): void {
  deliver(e);
  const message = JSON.stringify({ ...e, origin: state.instanceId });
  const publisher = ensurePublisher();
  if (!publisher) return;
  enqueue(message);
  flush(publisher);
}

/** Opens the publisher now (boot), so the first event finds it ready. */
export function connectTicketEventPublisher(): void {
  ensurePublisher();
}

/** True while other instances' events reach this process (else waiters.ts checks every second). */
export function ticketEventsLive(): boolean {
  return state.subscriber?.status === 'ready';
}

/**
 * Runs `hook` each time the subscriber (re)connects or loses a live
 * connection (`ticketEventsLive()` has changed); returns the unregister function.
 */
export function onTicketEventsReconnect(hook: () => void): () => void {
  state.reconnectHooks.add(hook);
  return () => {
    state.reconnectHooks.delete(hook);
  };
}

/**
 * Points the connections at another Redis or channel (tests; a second
 * "instance" id). Closes existing connections; they reopen on next use.
 */
export async function configureTicketEvents(opts: {
  redisUrl?: string;
  channel?: string;
  instanceId?: string;
}): Promise<void> {
  await closeTicketEvents();
  if (opts.redisUrl !== undefined) state.redisUrl = opts.redisUrl;
  if (opts.channel !== undefined) state.channel = opts.channel;
  if (opts.instanceId !== undefined) state.instanceId = opts.instanceId;
}

export async function closeTicketEvents(): Promise<void> {
  const { subscriber, publisher } = state;
  state.subscriber = undefined;
  state.publisher = undefined;
  state.pending = [];
  state.dropped = 0;
  if (subscriber) await closeRedis(subscriber);
  if (publisher) await closeRedis(publisher);
}

function deliver(e: TicketEvent): void {
  for (const listener of state.listeners) {
    try {
      listener(e);
    } catch (err) {
      log.error({ err: err instanceof Error ? err.message : String(err) }, 'ticket listener threw');
    }
  }
}

function redisUrl(): string {
  return state.redisUrl ?? config().REDIS_URL;
}

function ensurePublisher(): Redis | undefined {
  if (!state.publisher) {
    let pub: Redis;
    try {
      pub = createRedisConnection(redisUrl(), 'producer', log);
    } catch (err) {
      log.warn({ err: err instanceof Error ? err.message : String(err) }, 'no ticket publisher');
      return undefined;
    }
    state.publisher = pub;
    pub.on('ready', () => flush(pub));
  }
  return state.publisher;
}

function enqueue(message: string): void {
  state.pending.push(message);
  if (state.pending.length <= MAX_PENDING_TICKET_EVENTS) return;
  state.pending.shift();
  // One warning per 100 drops: an outage must not flood the log.
  if (state.dropped++ % 100 === 0) {
    log.warn(
      { dropped: state.dropped, kept: MAX_PENDING_TICKET_EVENTS },
      'ticket event queue full: dropped the oldest (other instances poll the database)',
    );
  }
}

/**
 * Sends the queued messages in order. ioredis keeps a connection's commands
 * in order, so issuing them back to back preserves it. A send that fails (the
 * connection dropped meanwhile) is queued again for the next 'ready'.
 */
function flush(publisher: Redis): void {
  if (publisher !== state.publisher) return;
  const channel = state.channel;
  while (publisher.status === 'ready' && state.pending.length > 0) {
    const message = state.pending.shift() as string;
    publisher.publish(channel, message).catch(() => {
      if (publisher === state.publisher) enqueue(message);
    });
  }
  if (state.pending.length === 0) state.dropped = 0;
}

/** Opens the subscriber once; ioredis re-subscribes by itself after a reconnect. */
export function ensureSubscriber(): void {
  if (state.subscriber) return;
  let sub: Redis;
  try {
    // 'worker' role: a subscriber may park commands while Redis is away.
    sub = createRedisConnection(redisUrl(), 'worker', log);
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'no ticket subscriber');
    return;
  }
  state.subscriber = sub;
  const channel = state.channel;
  sub.subscribe(channel).catch(() => {
    // Retried by ioredis on reconnect (autoResubscribe); waiters poll meanwhile.
  });
  // Waiters re-read on both edges: after an outage (events may have been
  // missed) and at its start (they switch to polling the database).
  let live = false;
  const changed = () => {
    for (const hook of state.reconnectHooks) hook();
  };
  sub.on('ready', () => {
    live = true;
    changed();
  });
  sub.on('close', () => {
    if (!live) return;
    live = false;
    changed();
  });
  sub.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    const e = parseEvent(message);
    if (e && e.origin !== state.instanceId) {
      const { type, ticketId, hostId, expiresAt } = e;
      deliver(
        typeof expiresAt === 'string'
          ? { type, ticketId, hostId, expiresAt }
          : { type, ticketId, hostId },
      );
    }
  });
}

function parseEvent(message: string): (TicketEvent & { origin: string }) | null {
  try {
    const v = JSON.parse(message) as Record<string, unknown>;
    if (
      typeof v.type === 'string' &&
      TYPES.includes(v.type) &&
      typeof v.ticketId === 'string' &&
      typeof v.hostId === 'string' &&
      typeof v.origin === 'string'
    ) {
      return v as TicketEvent & { origin: string };
    }
  } catch {
    // Not ours: ignore.
  }
  return null;
}
