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
/** How long a job refused a slot steps aside (back to delayed), by how often it already has. */
export interface StepAsidePolicy {
  /** The ceiling of the first step-aside; it doubles with every further one… */
  firstMs: number;
  /** …up to this. */
  maxMs: number;
}

/**
 * 250–500 ms the first time (a fast host's burst clears in a moment),
 * doubling to 2.5–5 s. A fixed 250–500 ms had every job behind a slow host
 * come back two to four times a second: 1,000 callbacks queued for one
 * receiver made thousands of Redis operations a second to no purpose.
 */
export const STEP_ASIDE: StepAsidePolicy = Object.freeze({ firstMs: 500, maxMs: 5_000 });

/**
 * The delay of a job that has stepped aside `before` times already: a
 * ceiling doubling from `firstMs` to `maxMs`, jittered over its upper half
 * so that jobs refused together do not come back together.
 */
export function stepAsideMs(
  before: number,
  policy: StepAsidePolicy = STEP_ASIDE,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.firstMs * 2 ** Math.min(before, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

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

/**
 * A host's endpoint is at its limit: the job should come back later (the
 * worker picks when: stepAsideMs), not wait in a slot.
 */
export class HostBusyError extends Error {
  readonly code = 'webhook_host_busy';
  constructor(
    readonly hostId: string,
    readonly kind: string,
  ) {
    super('webhook_host_busy');
  }
}

export interface HostSlotsOptions {
  /** Key prefix (the queue target's), so test runs never share leases. */
  prefix: string;
  /** Calls in flight per host and kind (WEBHOOK_HOST_CONCURRENCY). */
  limit: number;
  marginMs?: number;
  /**
   * Brings one waiting job (a member `wait` registered) back before its
   * step-aside ends; false when it cannot (gone, already running, another
   * process's queue). Called after every release.
   */
  wake?: (member: string) => Promise<boolean>;
}

/** A waiter list untouched this long is dropped (its jobs come back on their own timers). */
const WAITERS_TTL_MS = 10 * 60 * 1000;
/** Waiters tried per release: stale ones (already run, removed) are skipped. */
const WAKE_TRIES = 3;

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

  /** The endpoint's jobs that stepped aside, oldest first. */
  waitersKey(hostId: string, kind: string): string {
    return `${this.key(hostId, kind)}:waiting`;
  }

  /**
   * Registers a job that stepped aside for this endpoint, so that the next
   * release wakes it instead of the slot idling until its timer. Scored by
   * the job's age (first come, first woken); a job already listed keeps its
   * place.
   */
  async wait(hostId: string, kind: string, member: string, since: number): Promise<void> {
    const key = this.waitersKey(hostId, kind);
    await this.redis.multi().zadd(key, 'NX', since, member).pexpire(key, WAITERS_TTL_MS).exec();
  }

  /** Wakes the oldest waiter that can be woken (a few tries); no-op without `wake`. */
  private async wakeOne(hostId: string, kind: string): Promise<void> {
    if (!this.opts.wake) return;
    for (let i = 0; i < WAKE_TRIES; i++) {
      const [member] = await this.redis.zpopmin(this.waitersKey(hostId, kind));
      if (member === undefined || (await this.opts.wake(member))) return;
    }
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
   * Runs `call` holding a slot of the endpoint; HostBusyError when none is
   * free. A failed release is left to the lease's expiry. The freed slot
   * wakes the endpoint's oldest waiter: with step-asides growing to
   * seconds, a slot would otherwise idle until some waiter's timer ends.
   */
  async run<T>(
    endpoint: { hostId: string; kind: string; timeoutMs: number },
    call: () => Promise<T>,
  ): Promise<T> {
    const lease = await this.acquire(endpoint.hostId, endpoint.kind, endpoint.timeoutMs);
    if (!lease) throw new HostBusyError(endpoint.hostId, endpoint.kind);
    try {
      return await call();
    } finally {
      await this.release(endpoint.hostId, endpoint.kind, lease).catch(() => {});
      await this.wakeOne(endpoint.hostId, endpoint.kind).catch(() => {});
    }
  }
}
