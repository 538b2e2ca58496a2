import type { SessionEntry } from './export-sessions';

/**
 * The record lines the session checks need (export-sessions.ts), kept
 * compactly: a million records held as JS strings and per-session arrays
 * until `finish()` cost the main thread more in garbage collection than the
 * merge itself, competing with the worker threads for the cores. Here each
 * record is a few numbers in typed arrays and its chain and previous links
 * 32 bytes each; the `SessionEntry` objects of a session are built only
 * when its checks run. Values that are not what ingest writes (a link that
 * is not 64 lowercase hex characters, a non-decimal record id) are kept
 * as they are, on the side, so every check sees exactly the line's value.
 *
 * A worker collects a chunk's records into a `SessionBatch` (typed arrays,
 * cheap to pass between threads); the main thread adds the batches in file
 * order to a `SessionStore`, which keeps them as they are and links each
 * session's records (growing one large array instead cost page faults and
 * copies in the main thread, which competes with the workers for the cores).
 */

/** Flag bits per record. */
const CHAIN_HEX = 1;
const PREV_HEX = 2;
const PREV_NULL = 4;
const ID_NUMBER = 8;

/** A chunk's record lines for the session checks (parallel arrays, `n` records). */
export type SessionBatch = {
  n: number;
  /**
   * Which checker's numbering of sessions `session` uses (one per worker
   * thread): a checker numbers the sessions it meets in order and names each
   * once, in the batch where it first meets it, so a million records cost
   * the main thread a look-up per session, not per record.
   */
  stream: number;
  /** The number of the first of `newKeys`. */
  firstKey: number;
  /** Sessions (`${hostId}\u0000${sessionId}`) this checker had not met before, numbered from `firstKey`. */
  newKeys: string[];
  /** Per record: its session's number in the stream. */
  session: Int32Array;
  line: Float64Array;
  /** The record id as a number when it is a canonical decimal (ID_NUMBER), else in `other`. */
  id: Float64Array;
  sequence: Float64Array;
  /** NaN for none. */
  leafIndex: Float64Array;
  /** Per record 64 bytes: the chain link, then the previous link (when hex). */
  links: Uint8Array;
  flags: Uint8Array;
  /** Values kept as they are: [record, 'chain' | 'prev' | 'id', value]. */
  other: [number, 'chain' | 'prev' | 'id', unknown][];
};

const HEX_VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let c = 0; c < 10; c++) t[48 + c] = c;
  for (let c = 0; c < 6; c++) t[97 + c] = 10 + c;
  return t;
})();

/** Writes a 64-character lowercase hex string as 32 bytes at `at`; false (bytes undefined) for anything else. */
function writeHex(s: unknown, out: Uint8Array, at: number): boolean {
  if (typeof s !== 'string' || s.length !== 64) return false;
  for (let i = 0; i < 32; i++) {
    const hi = s.charCodeAt(2 * i);
    const lo = s.charCodeAt(2 * i + 1);
    const h = hi < 128 ? (HEX_VALUE[hi] as number) : -1;
    const l = lo < 128 ? (HEX_VALUE[lo] as number) : -1;
    if (h < 0 || l < 0) return false;
    out[at + i] = (h << 4) | l;
  }
  return true;
}

/** Collects one chunk's record lines (on a worker thread). */
export class SessionBatchBuilder {
  // push() answers whether the previous link is 64 lowercase hex characters
  // (so the caller need not test it again).
  private n = 0;
  private cap = 0;
  private readonly newKeys: string[] = [];
  private readonly firstKey: number;

  /** `keys`: the checker's numbering of sessions, kept from batch to batch. */
  constructor(
    private readonly stream = 0,
    private readonly keys = new Map<string, number>(),
  ) {
    this.firstKey = keys.size;
  }

  private session = new Int32Array(0);
  private line = new Float64Array(0);
  private id = new Float64Array(0);
  private sequence = new Float64Array(0);
  private leafIndex = new Float64Array(0);
  private links = new Uint8Array(0);
  private flags = new Uint8Array(0);
  private readonly other: SessionBatch['other'] = [];

  push(
    key: string,
    line: number,
    id: string,
    sequence: number,
    chain: unknown,
    prev: unknown,
    leafIndex: number | null,
  ): boolean {
    const i = this.n;
    if (i === this.cap) this.grow();
    let s = this.keys.get(key);
    if (s === undefined) {
      s = this.keys.size;
      this.keys.set(key, s);
      this.newKeys.push(key);
    }
    this.session[i] = s;
    this.line[i] = line;
    this.sequence[i] = sequence;
    this.leafIndex[i] = leafIndex ?? Number.NaN;
    let flags = 0;
    const n = Number(id);
    if (Number.isSafeInteger(n) && n >= 0 && String(n) === id) {
      this.id[i] = n;
      flags |= ID_NUMBER;
    } else this.other.push([i, 'id', id]);
    if (writeHex(chain, this.links, 64 * i)) flags |= CHAIN_HEX;
    else this.other.push([i, 'chain', chain]);
    if (prev === null) flags |= PREV_NULL;
    else if (writeHex(prev, this.links, 64 * i + 32)) flags |= PREV_HEX;
    else this.other.push([i, 'prev', prev]);
    this.flags[i] = flags;
    this.n = i + 1;
    return (flags & PREV_HEX) !== 0;
  }

  /** The batch (its arrays trimmed to the records, so only they are copied to another thread). */
  build(): SessionBatch {
    const n = this.n;
    return {
      n,
      stream: this.stream,
      firstKey: this.firstKey,
      newKeys: this.newKeys,
      session: this.session.slice(0, n),
      line: this.line.slice(0, n),
      id: this.id.slice(0, n),
      sequence: this.sequence.slice(0, n),
      leafIndex: this.leafIndex.slice(0, n),
      links: this.links.slice(0, 64 * n),
      flags: this.flags.slice(0, n),
      other: this.other,
    };
  }

  private grow(): void {
    // From small: ExportVerifier.push checks one line per batch.
    const cap = Math.max(16, this.cap * 2);
    this.session = grown(this.session, new Int32Array(cap));
    this.line = grown(this.line, new Float64Array(cap));
    this.id = grown(this.id, new Float64Array(cap));
    this.sequence = grown(this.sequence, new Float64Array(cap));
    this.leafIndex = grown(this.leafIndex, new Float64Array(cap));
    this.links = grown(this.links, new Uint8Array(64 * cap));
    this.flags = grown(this.flags, new Uint8Array(cap));
    this.cap = cap;
  }
}

function grown<T extends Int32Array | Float64Array | Uint8Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}

type Stream = { keys: string[]; sessions: number[] };

/** A batch as the store keeps it: its arrays as they came, plus the sessions' links. */
type Kept = {
  b: SessionBatch;
  links: Buffer;
  /** Per record, the session's next record (batch, index), or batch -1. */
  nextBatch: Int32Array;
  nextIndex: Int32Array;
  other: Map<number, { chain?: unknown; prev?: unknown; id?: unknown }> | null;
};

/**
 * Every record line of the file for the session checks (on the main
 * thread): the batches kept as they arrived (no copying, no growing), each
 * session a linked list of its records in file order.
 */
export class SessionStore {
  private readonly kept: Kept[] = [];
  /** Sessions in order of first appearance (the order their checks report in). */
  private readonly keys: string[] = [];
  private readonly sessionIndex = new Map<string, number>();
  /** Per stream, its sessions by number, and their numbers here (-1: none yet). */
  private readonly streams = new Map<number, Stream>();
  /** Per session, its first and last record (batch, index). */
  private firstBatch = new Int32Array(0);
  private firstIndex = new Int32Array(0);
  private lastBatch = new Int32Array(0);
  private lastIndex = new Int32Array(0);

  get sessions(): number {
    return this.keys.length;
  }

  has(key: string): boolean {
    return this.sessionIndex.has(key);
  }

  /**
   * A batch whose records are not kept (lines after the end line): only its
   * stream's session numbering is followed, so the stream's next batches read right.
   */
  skip(b: SessionBatch): void {
    this.streamOf(b);
  }

  add(b: SessionBatch): void {
    const stream = this.streamOf(b);
    if (b.n === 0) return;
    const k = this.kept.length;
    const kept: Kept = {
      b,
      links: Buffer.from(b.links.buffer, b.links.byteOffset, b.links.byteLength),
      nextBatch: new Int32Array(b.n).fill(-1),
      nextIndex: new Int32Array(b.n),
      other: null,
    };
    this.kept.push(kept);
    // The stream's session numbers become the store's (the batch is ours now);
    // sessions new here are made first, as that may grow the arrays below.
    for (let i = 0; i < b.n; i++) {
      const local = b.session[i] as number;
      let s = stream.sessions[local] as number;
      if (s < 0) {
        s = this.sessionOf(stream.keys[local] as string);
        stream.sessions[local] = s;
      }
      b.session[i] = s;
    }
    const { firstBatch, firstIndex, lastBatch, lastIndex } = this;
    for (let i = 0; i < b.n; i++) {
      const s = b.session[i] as number;
      const lb = lastBatch[s] as number;
      if (lb < 0) {
        firstBatch[s] = k;
        firstIndex[s] = i;
      } else {
        const last = this.kept[lb] as Kept;
        last.nextBatch[lastIndex[s] as number] = k;
        last.nextIndex[lastIndex[s] as number] = i;
      }
      lastBatch[s] = k;
      lastIndex[s] = i;
    }
    if (b.other.length > 0) {
      const other = new Map<number, { chain?: unknown; prev?: unknown; id?: unknown }>();
      for (const [i, what, value] of b.other) {
        let o = other.get(i);
        if (!o) {
          o = {};
          other.set(i, o);
        }
        o[what] = value;
      }
      kept.other = other;
    }
  }

  /** Each session's key and its records in file order. */
  *bySession(): Generator<[string, SessionEntry[]]> {
    for (let s = 0; s < this.keys.length; s++) {
      const entries: SessionEntry[] = [];
      let k = this.firstBatch[s] as number;
      let i = this.firstIndex[s] as number;
      while (k >= 0) {
        const kept = this.kept[k] as Kept;
        entries.push(entry(kept, i));
        k = kept.nextBatch[i] as number;
        i = kept.nextIndex[i] as number;
      }
      yield [this.keys[s] as string, entries];
    }
  }

  /** The records on the given lines, with their sessions' keys. */
  onLines(lines: Set<number>): Map<number, { key: string; entry: SessionEntry }> {
    const out = new Map<number, { key: string; entry: SessionEntry }>();
    for (const kept of this.kept) {
      const b = kept.b;
      for (let i = 0; i < b.n; i++) {
        const line = b.line[i] as number;
        if (lines.has(line))
          out.set(line, {
            key: this.keys[b.session[i] as number] as string,
            entry: entry(kept, i),
          });
      }
    }
    return out;
  }

  private streamOf(b: SessionBatch): Stream {
    let stream = this.streams.get(b.stream);
    if (!stream) {
      stream = { keys: [], sessions: [] };
      this.streams.set(b.stream, stream);
    }
    // A stream's batches come in the order its checker made them (file order).
    if (stream.keys.length !== b.firstKey) throw new Error('session batches out of order');
    for (const k of b.newKeys) {
      stream.keys.push(k);
      stream.sessions.push(-1); // a session here once a record of it is kept
    }
    return stream;
  }

  private sessionOf(key: string): number {
    let s = this.sessionIndex.get(key);
    if (s !== undefined) return s;
    s = this.keys.length;
    this.keys.push(key);
    this.sessionIndex.set(key, s);
    if (s >= this.firstBatch.length) {
      const cap = Math.max(1024, this.firstBatch.length * 2);
      this.firstBatch = grown(this.firstBatch, new Int32Array(cap));
      this.firstIndex = grown(this.firstIndex, new Int32Array(cap));
      this.lastBatch = grown(this.lastBatch, new Int32Array(cap));
      this.lastIndex = grown(this.lastIndex, new Int32Array(cap));
    }
    this.firstBatch[s] = -1;
    this.lastBatch[s] = -1;
    return s;
  }
}

function entry(kept: Kept, i: number): SessionEntry {
  const b = kept.b;
  const flags = b.flags[i] as number;
  const o = kept.other?.get(i);
  const at = 64 * i;
  return {
    line: b.line[i] as number,
    id: (flags & ID_NUMBER ? String(b.id[i]) : o?.id) as string,
    sequence: b.sequence[i] as number,
    chain: (flags & CHAIN_HEX ? kept.links.toString('hex', at, at + 32) : o?.chain) as string,
    prev: (flags & PREV_NULL
      ? null
      : flags & PREV_HEX
        ? kept.links.toString('hex', at + 32, at + 64)
        : o?.prev) as string | null,
    leafIndex: Number.isNaN(b.leafIndex[i]) ? null : (b.leafIndex[i] as number),
  };
}
