import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  closeTicketEvents,
  configureTicketEvents,
  connectTicketEventPublisher,
  MAX_PENDING_TICKET_EVENTS,
  publishTicketEvent,
} from '@/lib/server/approvals/events';
import { testRedis, testRedisClient } from './helpers/redis';

/**
 * Issue 17 item 7 (a): a fresh process's first ticket events reach other
 * instances. `configureTicketEvents` drops the module's connections, so each
 * test starts as a process that has not talked to Redis yet.
 */
describe('ticket events: the publisher of a fresh process', () => {
  let n = 0;
  let channel: string;
  let listener: Redis;
  let received: string[];

  beforeEach(async () => {
    channel = `${testRedis().prefix}events-pub-${++n}`;
    await configureTicketEvents({ redisUrl: testRedis().url, channel, instanceId: 'it-pub' });
    received = [];
    listener = testRedisClient();
    listener.on('message', (ch: string, m: string) => {
      if (ch === channel) received.push(m);
    });
    await listener.subscribe(channel);
  });
  afterEach(async () => {
    await listener.quit();
    await closeTicketEvents();
  });
  afterAll(closeTicketEvents);

  async function until(cond: () => boolean, ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  }

  it('an event published right after boot reaches a subscriber on another connection', async () => {
    connectTicketEventPublisher(); // as boot() does; still connecting when the event comes
    const started = Date.now();
    publishTicketEvent({ type: 'decided', ticketId: 't-1', hostId: 'h-1' });
    await until(() => received.length > 0, 2_000);
    expect(received.map((m) => JSON.parse(m))).toEqual([
      { type: 'decided', ticketId: 't-1', hostId: 'h-1', origin: 'it-pub' },
    ]);
    // Well under the 5 s safety poll other instances used to wait for.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('without the boot connect, the very first publish still goes out (queued until ready)', async () => {
    publishTicketEvent({ type: 'created', ticketId: 't-2', hostId: 'h-2' });
    publishTicketEvent({ type: 'decided', ticketId: 't-2', hostId: 'h-2' });
    await until(() => received.length >= 2, 2_000);
    expect(received.map((m) => JSON.parse(m).type)).toEqual(['created', 'decided']);
  });

  it('the queue is bounded: the oldest are dropped, the rest go out in order', async () => {
    const total = MAX_PENDING_TICKET_EVENTS + 10;
    const started = Date.now();
    // All published synchronously, before the connection can be ready.
    for (let i = 0; i < total; i++) {
      publishTicketEvent({ type: 'decided', ticketId: `t-${i}`, hostId: 'h' });
    }
    // Never blocks the caller.
    expect(Date.now() - started).toBeLessThan(500);
    await until(() => received.length >= MAX_PENDING_TICKET_EVENTS, 5_000);
    await new Promise((r) => setTimeout(r, 200)); // nothing more arrives
    const ids = received.map((m) => JSON.parse(m).ticketId);
    expect(ids).toHaveLength(MAX_PENDING_TICKET_EVENTS);
    expect(ids[0]).toBe('t-10');
    expect(ids.at(-1)).toBe(`t-${total - 1}`);
    expect(ids).toEqual(Array.from({ length: MAX_PENDING_TICKET_EVENTS }, (_, i) => `t-${i + 10}`));
  });

  it('once ready, an event goes out at once', async () => {
    publishTicketEvent({ type: 'created', ticketId: 't-3', hostId: 'h' });
    await until(() => received.length > 0, 2_000);
    const started = Date.now();
    publishTicketEvent({ type: 'decided', ticketId: 't-3', hostId: 'h' });
    await until(() => received.length > 1, 2_000);
    expect(received.map((m) => JSON.parse(m).type)).toEqual(['created', 'decided']);
    expect(Date.now() - started).toBeLessThan(300);
  });

  it('events published while the publisher reconnects go out after it is back', async () => {
    publishTicketEvent({ type: 'created', ticketId: 't-4', hostId: 'h' });
    await until(() => received.length > 0, 2_000);
    const st = (globalThis as unknown as { __checkpointTicketEvents: { publisher: Redis } })
      .__checkpointTicketEvents;
    // Break the socket as a network failure would; ioredis reconnects by itself.
    st.publisher.stream.destroy();
    await until(() => st.publisher.status !== 'ready', 1_000);
    expect(st.publisher.status).not.toBe('ready');
    publishTicketEvent({ type: 'decided', ticketId: 't-4', hostId: 'h' });
    await until(() => received.length > 1, 5_000);
    expect(received.map((m) => JSON.parse(m).type)).toEqual(['created', 'decided']);
  });
});
