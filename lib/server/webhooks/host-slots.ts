import 'server-only';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * At most `limit` outbound calls in flight per host and webhook kind, across
 * every worker process: a lease semaphore in Redis. Each host's endpoint has
 * a sorted set of leases scored by their expiry (Redis's own clock, so
 * workers with skewed clocks agree); taking a slot first drops expired
 * leases, so a worker killed mid-call holds its slot only until its lease
 * runs out (the call's timeout plus a margin), never forever.
 *
 * Keyed by host *and* kind: a host's slow callback receiver must not hold
 * up its own resolver consultations, which a ticket is waiting on; the two
 * are different endpoints and run in different lanes anyway.
 */

/** Added to a call's timeout: the lease also covers the attempt's database writes. */
export const LEASE_MARGIN_MS = 10_000;
/** A job refused a slot comes back after this long plus up to as much again (jitter). */
export const BUSY_RETRY_MS = 250;

// KEYS[1]: the lease set. ARGV: lease id, limit, lease length in ms.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1`;

// KEYS[1]: the lease set. ARGV: lease id.
const RELEASE = `return redis.call('ZREM', KEYS[1], ARGV[1])`;

// KEYS[1]: the lease set. Live leases only.
const COUNT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;

interface SlotCommands {
  checkpointSlotAcquire(key: string, lease: string, limit: number, ms: number): Promise<number>;
  checkpointSlotRelease(key: string, lease: string): Promise<number>;
  checkpointSlotCount(key: string): Promise<number>;
}

/** A host's endpoint is at its limit: the job should come back later, not wait in a slot. */
export class HostBusyError extends Error {
  readonly code = 'webhook_host_busy';
  constructor(readonly retryInMs: number) {
    super('webhook_host_busy');
  }
}

export interface HostSlotsOptions {
  /** Key prefix (the queue target's), so test runs never share leases. */
  prefix: string;
  /** Calls in flight per host and kind (WEBHOOK_HOST_CONCURRENCY). */
  limit: number;
  marginMs?: number;
}

export class HostSlots {
  private readonly redis: Redis & SlotCommands;
  readonly limit: number;
  private readonly marginMs: number;

  constructor(
    redis: Redis,
    private readonly opts: HostSlotsOptions,
  ) {
    this.limit = opts.limit;
    this.marginMs = opts.marginMs ?? LEASE_MARGIN_MS;
    // defineCommand sends EVALSHA, falling back to EVAL once per connection.
    if (!('checkpointSlotAcquire' in redis)) {
      redis.defineCommand('checkpointSlotAcquire', { numberOfKeys: 1, lua: ACQUIRE });
      redis.defineCommand('checkpointSlotRelease', { numberOfKeys: 1, lua: RELEASE });
      redis.defineCommand('checkpointSlotCount', { numberOfKeys: 1, lua: COUNT });
    }
    this.redis = redis as Redis & SlotCommands;
  }

  key(hostId: string, kind: string): string {
    return `${this.opts.prefix}:hostslots:${hostId}:${kind}`;
  }

  /** A lease id, or null when the endpoint already has `limit` calls in flight. */
  async acquire(hostId: string, kind: string, callTimeoutMs: number): Promise<string | null> {
    const lease = randomUUID();
    const ms = Math.max(1, Math.ceil(callTimeoutMs + this.marginMs));
    const ok = await this.redis.checkpointSlotAcquire(
      this.key(hostId, kind),
      lease,
      this.limit,
      ms,
    );
    return ok === 1 ? lease : null;
  }

  async release(hostId: string, kind: string, lease: string): Promise<void> {
    await this.redis.checkpointSlotRelease(this.key(hostId, kind), lease);
  }

  /** Live leases of an endpoint (tests and diagnostics). */
  inFlight(hostId: string, kind: string): Promise<number> {
    return this.redis.checkpointSlotCount(this.key(hostId, kind));
  }

  /**
   * Runs `call` holding a slot of the endpoint; HostBusyError (with a
   * jittered delay) when none is free. A failed release is left to the
   * lease's expiry.
   */
  async run<T>(
    endpoint: { hostId: string; kind: string; timeoutMs: number },
    call: () => Promise<T>,
  ): Promise<T> {
    const lease = await this.acquire(endpoint.hostId, endpoint.kind, endpoint.timeoutMs);
    if (!lease) throw new HostBusyError(BUSY_RETRY_MS + Math.floor(Math.random() * BUSY_RETRY_MS));
    try {
      return await call();
    } finally {
      await this.release(endpoint.hostId, endpoint.kind, lease).catch(() => {});
    }
  }
}
