import type { InterceptionRecord, RecordSink } from './types.ts';
import type { RecordRefusal, SendResult } from './send-result.ts';
import { utf8Length } from './utf8.ts';

/**
 * The buffering half of a RecordSink, shared by the HTTP sink (remote hosts,
 * lib/client) and the server's in-process sink — here, in the engine, so
 * neither depends on the other. The transport is a parameter; this module
 * does no I/O itself: records are buffered and sent in
 * batches on size, on an interval and at close; transient failures are
 * retried with exponential backoff and jitter; memory is bounded.
 *
 * When the buffer is full the NEWEST record is dropped (counted as
 * `buffer_full`): what is buffered stays a contiguous, in-order prefix of
 * each session, so the store shows one gap at the tail rather than holes
 * scattered through records already queued. Every drop is counted by reason
 * and the running total travels with each batch, so the server can show it.
 */

export type { IndexedRefusal, RecordRefusal, SendResult } from './send-result.ts';

type Refused = Extract<SendResult, { retry: false }>;

export type RecordTransport = (
  batch: InterceptionRecord[],
  droppedTotal: number,
) => Promise<SendResult>;

export type BatchingOptions = {
  /** Records per request (the server takes at most 10,000). */
  maxBatch?: number;
  /** Serialized bytes per request (the server takes at most 5 MiB). */
  maxBatchBytes?: number;
  /** A partial batch is sent at least this often. */
  flushIntervalMs?: number;
  /** Records held at most; beyond this new records are dropped. */
  maxBuffered?: number;
  /** First retry delay; doubles per attempt up to maxBackoffMs, with jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Called for every drop, after it is counted. Must not throw (errors are ignored). */
  onDrop?: (count: number, reason: string) => void;
  /**
   * Called once per record the server refused for good, with the record:
   * it is dropped, never retried, and the records after it still go out.
   * Must not throw (errors are ignored).
   */
  onRefused?: (record: InterceptionRecord, refusal: RecordRefusal) => void;
  /** For tests: the jitter source. */
  random?: () => number;
};

export type RecordSinkStats = {
  buffered: number;
  sent: number;
  duplicates: number;
  dropped: number;
  droppedByReason: Record<string, number>;
  retries: number;
  lastError: string | null;
};

type Entry = { record: InterceptionRecord; bytes: number };
type Observer = 'onDrop' | 'onRefused';

export class BatchingRecordSink {
  /** Hand this to `createHost({ sinks: [sink.sink] })`. */
  readonly sink: RecordSink = (record) => this.push(record);

  private readonly buffer: Entry[] = [];
  private readonly o: Required<Omit<BatchingOptions, Observer>> & Pick<BatchingOptions, Observer>;
  private readonly timer: ReturnType<typeof setInterval>;
  private pumping: Promise<void> | null = null;
  private closed = false;
  private attempt = 0;
  private readonly counts = {
    sent: 0,
    duplicates: 0,
    dropped: 0,
    retries: 0,
    lastError: null as string | null,
  };
  private readonly droppedByReason: Record<string, number> = {};

  constructor(
    private readonly transport: RecordTransport,
    options: BatchingOptions = {},
  ) {
    this.o = {
      maxBatch: clamp(options.maxBatch ?? 1000, 1, 10_000),
      maxBatchBytes: clamp(options.maxBatchBytes ?? 4 * 1024 * 1024, 1024, 5 * 1024 * 1024),
      flushIntervalMs: Math.max(10, options.flushIntervalMs ?? 1000),
      maxBuffered: Math.max(1, options.maxBuffered ?? 10_000),
      backoffMs: Math.max(1, options.backoffMs ?? 500),
      maxBackoffMs: Math.max(1, options.maxBackoffMs ?? 30_000),
      random: options.random ?? Math.random,
      onDrop: options.onDrop,
      onRefused: options.onRefused,
    };
    this.timer = setInterval(() => this.kick(false), this.o.flushIntervalMs);
    // A sink must never keep a host process alive on its own.
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** Buffers a record. Synchronous, never throws, never waits (§10.3 sinks must not block). */
  push(record: InterceptionRecord): void {
    try {
      if (this.closed) {
        this.drop(1, 'closed');
        return;
      }
      if (this.buffer.length >= this.o.maxBuffered) {
        this.drop(1, 'buffer_full');
        return;
      }
      this.buffer.push({ record, bytes: jsonBytes(record) });
      if (this.buffer.length >= this.o.maxBatch) this.kick(false);
    } catch {
      this.drop(1, 'unserializable');
    }
  }

  /**
   * Sends everything buffered now, retrying transient failures, and resolves
   * when the buffer is empty or `timeoutMs` has passed (true when emptied).
   */
  async flush(timeoutMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.buffer.length > 0 && Date.now() < deadline) {
      await this.pump(true, deadline);
    }
    return this.buffer.length === 0;
  }

  /**
   * Stops accepting records, flushes for up to `timeoutMs`, and drops (and
   * counts, as `shutdown`) whatever could not be delivered by then.
   */
  async close(timeoutMs = 10_000): Promise<RecordSinkStats> {
    this.closed = true;
    clearInterval(this.timer);
    await this.flush(timeoutMs);
    await this.pumping;
    if (this.buffer.length > 0) this.drop(this.buffer.splice(0).length, 'shutdown');
    return this.stats();
  }

  stats(): RecordSinkStats {
    return {
      buffered: this.buffer.length,
      ...this.counts,
      droppedByReason: { ...this.droppedByReason },
    };
  }

  private drop(count: number, reason: string): void {
    if (count <= 0) return;
    this.counts.dropped += count;
    this.droppedByReason[reason] = (this.droppedByReason[reason] ?? 0) + count;
    try {
      this.o.onDrop?.(count, reason);
    } catch {
      // A drop observer must not turn a drop into a failure.
    }
  }

  private kick(force: boolean): void {
    if (this.buffer.length === 0 || this.pumping) return;
    void this.pump(force, Number.POSITIVE_INFINITY);
  }

  private pump(force: boolean, deadline: number): Promise<void> {
    if (this.pumping) return this.pumping;
    const run = this.drain(force, deadline).finally(() => {
      this.pumping = null;
    });
    this.pumping = run;
    return run;
  }

  /** One sender at a time: batches go out in order, so a session's records stay in order. */
  private async drain(force: boolean, deadline: number): Promise<void> {
    let first = true;
    while (this.buffer.length > 0 && (first || force || this.buffer.length >= this.o.maxBatch)) {
      first = false;
      if (Date.now() >= deadline) return;
      const size = this.batchSize();
      const batch = this.buffer.slice(0, size).map((e) => e.record);
      let result: SendResult;
      try {
        result = await this.transport(batch, this.counts.dropped);
      } catch (err) {
        result = { ok: false, retry: true, error: String((err as Error)?.message ?? err) };
      }
      if (result.ok) {
        this.buffer.splice(0, size);
        this.counts.sent += result.accepted;
        this.counts.duplicates += result.duplicates;
        this.attempt = 0;
      } else if (result.retry) {
        this.counts.retries++;
        this.counts.lastError = result.error;
        this.attempt++;
        const wait = this.backoff();
        if (Date.now() + wait >= deadline) return;
        await sleep(wait);
      } else {
        this.counts.lastError = result.reason;
        this.removeFromHead(size, result);
      }
    }
  }

  private batchSize(): number {
    let bytes = 0;
    let n = 0;
    for (const e of this.buffer) {
      if (n >= this.o.maxBatch || (n > 0 && bytes + e.bytes > this.o.maxBatchBytes)) break;
      bytes += e.bytes;
      n++;
    }
    return n;
  }

  /** Drops what a permanent refusal named (the whole batch when it named nothing valid). */
  private removeFromHead(size: number, result: Refused): void {
    const head = this.buffer.slice(0, size);
    const named = (result.indices ?? []).filter((i) => Number.isInteger(i) && i >= 0 && i < size);
    const bad = new Set(named.length > 0 ? named : head.keys());
    this.buffer.splice(0, size, ...head.filter((_, i) => !bad.has(i)));
    this.drop(bad.size, result.reason);
    for (const i of bad) this.refused(head[i].record, i, result);
  }

  private refused(record: InterceptionRecord, index: number, result: Refused) {
    if (!this.o.onRefused) return;
    const detail = result.details?.find((d) => d.index === index);
    const { reason, message = reason } = result;
    const refusal: RecordRefusal = { reason, code: detail?.code ?? reason, message };
    if (detail?.message) refusal.message = detail.message;
    if (detail?.path !== undefined) refusal.path = detail.path;
    try {
      this.o.onRefused(record, refusal);
    } catch {
      // An observer must not turn a refusal into a failure of the sink.
    }
  }

  /** Exponential backoff with "equal jitter": between half and all of the capped delay. */
  private backoff(): number {
    const capped = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** (this.attempt - 1));
    return Math.round(capped / 2 + (capped / 2) * this.o.random());
  }
}

function jsonBytes(record: InterceptionRecord): number {
  const text = JSON.stringify(record);
  if (typeof text !== 'string') throw new TypeError('record is not JSON');
  // UTF-8 bytes, plus the newline between NDJSON lines.
  return utf8Length(text) + 1;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.floor(n)));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    (t as { unref?: () => void }).unref?.();
  });
}
