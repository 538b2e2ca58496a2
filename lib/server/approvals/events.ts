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
 * database holds the truth, and waiters poll it while the subscriber is down.
 */

export type TicketEventType = 'created' | 'decided' | 'expired';
export type TicketEvent = { type: TicketEventType; ticketId: string; hostId: string };
export type TicketEventListener = (e: TicketEvent) => void;

export const TICKET_EVENTS_CHANNEL = 'checkpoint:tickets';

interface EventsState {
  instanceId: string;
  listeners: Set<TicketEventListener>;
  redisUrl?: string;
  channel: string;
  subscriber?: Redis;
  publisher?: Redis;
  /** Called whenever the subscriber (re)connects: events may have been missed. */
  reconnectHooks: Set<() => void>;
}

const g = globalThis as unknown as { __checkpointTicketEvents?: EventsState };
const state: EventsState = g.__checkpointTicketEvents ?? {
  instanceId: randomUUID(),
  listeners: new Set(),
  channel: TICKET_EVENTS_CHANNEL,
  reconnectHooks: new Set(),
};
g.__checkpointTicketEvents = state;

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

/** After a commit: local listeners now, other instances through Redis (best effort). */
export function publishTicketEvent(e: TicketEvent): void {
  deliver(e);
  const publisher = ensurePublisher();
  if (publisher?.status !== 'ready') return;
  const message = JSON.stringify({ ...e, origin: state.instanceId });
  publisher.publish(state.channel, message).catch(() => {
    // Other instances' waiters fall back to polling the database.
  });
}

/** True while other instances' events reach this process (else waiters poll the database). */
export function ticketEventsLive(): boolean {
  return state.subscriber?.status === 'ready';
}

/** Runs `hook` each time the subscriber (re)connects; returns the unregister function. */
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
    try {
      state.publisher = createRedisConnection(redisUrl(), 'producer', log);
    } catch {
      return undefined;
    }
  }
  return state.publisher;
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
  sub.on('ready', () => {
    for (const hook of state.reconnectHooks) hook();
  });
  sub.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    const e = parseEvent(message);
    if (e && e.origin !== state.instanceId) {
      deliver({ type: e.type, ticketId: e.ticketId, hostId: e.hostId });
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
