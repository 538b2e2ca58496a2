import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type ChunkResult, type ClaimedHead, LineChecker } from './export-lines';
import {
  ExportInputError,
  type ExportVerification,
  ExportVerifier,
  type VerifyExportOptions,
} from './export-verify';
import { ChunkBuffers, decodeChunk, forEachChunk } from './read-lines';

/**
 * Verifies an export file (what `agent-hooks audit verify` runs): reads it
 * in chunks of whole lines, checks the header on this thread, the chunks'
 * lines on worker threads when the file is large (one per core, up to 4;
 * each chunk's per-line work is independent, and the results are merged in
 * file order, so the verdict and findings are the same as on one thread),
 * and the whole-file checks in the merge. Input it cannot read throws
 * `ExportInputError` (`input_unreadable`, `export_invalid`, …).
 */

export type VerifyFileOptions = VerifyExportOptions & {
  /** Worker threads; default: one per core (up to 4) for files of 32 MB or more, else none. */
  workers?: number;
  /** Bytes read per chunk (whole lines; a longer line grows it). */
  chunkBytes?: number;
};

const PARALLEL_FROM_BYTES = 32 * 1024 * 1024;

export async function verifyExportFile(
  path: string,
  opts: VerifyFileOptions,
): Promise<ExportVerification> {
  const verifier = new ExportVerifier(opts);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw unreadable(path, error);
  }
  const workers =
    opts.workers ??
    (size >= PARALLEL_FROM_BYTES ? Math.min(Math.max(availableParallelism(), 1), 4) : 0);
  let pool: Pool | null = null;
  let local: LineChecker | null = null;
  let seq = 0;
  // Workers hand each chunk's memory back with its result, to be read into again.
  const buffers = new ChunkBuffers();
  try {
    await forEachChunk(
      path,
      async (bytes, firstLine) => {
        let from = 0;
        if (firstLine === 1) {
          // The header is line 1; the lines' proofs need the head it claims.
          const nl = bytes.indexOf(10);
          const end = nl < 0 ? bytes.length : nl;
          const text = decodeChunk(bytes.subarray(0, end));
          const head = verifier.header(text.endsWith('\r') ? text.slice(0, -1) : text);
          if (workers > 0)
            pool = new Pool(workers, head, opts.maxFindings ?? 10_000, verifier, buffers);
          else local = new LineChecker(head, opts.maxFindings);
          from = nl < 0 ? bytes.length : nl + 1;
          firstLine = 2;
        }
        if (from >= bytes.length) return;
        const rest = from === 0 ? bytes : bytes.subarray(from);
        if (pool) await (pool as Pool).send(seq++, rest, firstLine);
        else verifier.merge((local as LineChecker).chunk(rest, firstLine));
      },
      opts.chunkBytes,
      buffers,
    );
    if (pool) await (pool as Pool).drain();
  } catch (error) {
    if (error instanceof ExportInputError) throw error;
    throw unreadable(path, error);
  } finally {
    if (pool) await (pool as Pool).close();
  }
  return verifier.finish();
}

function unreadable(path: string, error: unknown): ExportInputError {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ERR_ENCODING_INVALID_ENCODED_DATA')
    return new ExportInputError('input_unreadable', `${path} is not valid UTF-8`);
  return new ExportInputError(
    'input_unreadable',
    `cannot read ${path}: ${code ?? (error as Error)?.message ?? 'read failed'}`,
  );
}

type Answer = {
  seq: number;
  /** The chunk's memory, transferred back for reuse. */
  buffer?: ArrayBuffer;
  result?: ChunkResult;
  error?: { code: string | null; message: string };
};

/**
 * Worker threads checking chunks round-robin, at most two chunks in flight
 * per worker (so a large file is never read far ahead of the checking), and
 * their results merged into the verifier in the order the chunks were sent.
 */
class Pool {
  private readonly workers: Worker[];
  private readonly done = new Map<number, ChunkResult>();
  private next = 0;
  private sent = 0;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(
    n: number,
    head: ClaimedHead | null,
    maxFindings: number,
    private readonly verifier: ExportVerifier,
    private readonly buffers: ChunkBuffers,
  ) {
    this.workers = Array.from({ length: n }, (_, i) => {
      const w = new Worker(new URL('./export-worker.mjs', import.meta.url), {
        workerData: { head, maxFindings, stream: i + 1 },
        // Each line leaves a few KB of garbage: a larger young generation lets
        // it die there instead of being promoted and marked again.
        resourceLimits: { maxYoungGenerationSizeMb: 64 },
      });
      w.on('message', (a: Answer) => this.answer(a));
      w.on('error', (e) => this.fail(e));
      return w;
    });
  }

  private answer(a: Answer): void {
    if (a.buffer) this.buffers.give(a.buffer);
    if (a.error) {
      const e = new Error(a.error.message) as NodeJS.ErrnoException;
      if (a.error.code) e.code = a.error.code;
      this.fail(e);
      return;
    }
    this.done.set(a.seq, a.result as ChunkResult);
    for (let r = this.done.get(this.next); r; r = this.done.get(this.next)) {
      this.done.delete(this.next);
      this.verifier.merge(r);
      this.next++;
    }
    this.poke();
  }

  private fail(e: Error): void {
    this.failure ??= e;
    this.poke();
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private async until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    if (this.failure) throw this.failure;
  }

  async send(seq: number, bytes: Buffer, firstLine: number): Promise<void> {
    await this.until(() => this.sent - this.next < this.workers.length * 2);
    // The chunk's own memory, transferred (not copied) to the worker.
    const buffer =
      bytes.byteOffset === 0
        ? bytes.buffer
        : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const worker = this.workers[seq % this.workers.length] as Worker;
    worker.postMessage({ seq, buffer, length: bytes.byteLength, firstLine }, [
      buffer as ArrayBuffer,
    ]);
    this.sent++;
  }

  async drain(): Promise<void> {
    await this.until(() => this.next === this.sent);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
