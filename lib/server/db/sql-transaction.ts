import 'server-only';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Transaction as PgliteTransaction } from '@electric-sql/pglite';
import type pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { dbDriver } from '@/lib/server/db';

/**
 * A transaction on the driver under Prisma (db/open.ts: the same pool and
 * limits, or the same PGlite), for a write Prisma cannot express: COPY. The
 * records ingest is its one user (records/ingest.ts): COPY loads a batch
 * several times faster than any INSERT, and the rows' text is built while
 * the server is already storing the chunks before it.
 */

export interface SqlTx {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /**
   * `COPY … FROM STDIN` (text format) fed with `chunks`, pulled one at a time
   * as the connection drains; resolves to the number of rows stored.
   */
  copyFrom(sql: string, chunks: Iterable<string>): Promise<number>;
}

/** A transaction that outlived its bound: rolled back, answered 503 database_timeout (http/outage.ts). */
export class TransactionTimeoutError extends Error {
  readonly code = 'database_timeout';
  constructor(timeoutMs: number) {
    super(`the transaction did not commit within ${timeoutMs} ms; rolled back`);
  }
}

/**
 * Runs `fn` in one transaction: COMMIT when it resolves, ROLLBACK when it
 * throws. It never commits later than `timeoutMs` after BEGIN: past that the
 * connection is closed under any statement still running (the server rolls
 * back), so its locks go too.
 */
export async function sqlTransaction<T>(
  fn: (tx: SqlTx) => Promise<T>,
  opts: { timeoutMs: number },
): Promise<T> {
  const driver = await dbDriver();
  if (driver.kind === 'pglite') {
    const started = Date.now();
    return driver.pglite.transaction(async (tx) => {
      const result = await fn(pgliteTx(tx));
      // PGlite runs in this process: nothing can be interrupted, only refused.
      if (Date.now() - started > opts.timeoutMs) throw new TransactionTimeoutError(opts.timeoutMs);
      return result;
    });
  }
  return pgTransaction(driver.pool, fn, opts.timeoutMs);
}

async function pgTransaction<T>(
  pool: pg.Pool,
  fn: (tx: SqlTx) => Promise<T>,
  timeoutMs: number,
): Promise<T> {
  const client = await pool.connect();
  // A checked-out client's error event has no listener of the pool's.
  const onError = () => {};
  client.on('error', onError);
  let expired = false;
  let broken: Error | undefined;
  const timer = setTimeout(() => {
    expired = true;
    broken = new TransactionTimeoutError(timeoutMs);
    // Ends the socket: the running statement fails here, the server rolls back.
    (
      client as unknown as { connection: { stream: { destroy(): void } } }
    ).connection.stream.destroy();
  }, timeoutMs);
  try {
    await client.query('BEGIN');
    const result = await fn(pgTx(client));
    if (expired) throw new TransactionTimeoutError(timeoutMs);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    if (!expired) {
      await client.query('ROLLBACK').catch((e: Error) => {
        broken = e;
      });
    }
    throw expired ? new TransactionTimeoutError(timeoutMs) : err;
  } finally {
    clearTimeout(timer);
    client.removeListener('error', onError);
    // With an error the pool discards the connection instead of reusing it.
    client.release(broken);
  }
}

function pgTx(client: pg.PoolClient): SqlTx {
  return {
    async query<T>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as T[];
    },
    async copyFrom(sql, chunks) {
      const stream = client.query(copyFromStdin(sql));
      // pipeline destroys the COPY stream on a failure, which sends CopyFail.
      await pipeline(Readable.from(chunks, { objectMode: false }), stream);
      return stream.rowCount;
    },
  };
}

function pgliteTx(tx: PgliteTransaction): SqlTx {
  return {
    async query<T>(sql: string, params: unknown[] = []) {
      return (await tx.query<T>(sql, params)).rows;
    },
    async copyFrom(sql, chunks) {
      // PGlite has no STDIN: COPY reads the blob passed beside the query.
      const blob = new Blob([...chunks]);
      const result = await tx.query(sql.replace(/FROM STDIN$/, "FROM '/dev/blob'"), [], { blob });
      return result.affectedRows ?? 0;
    },
  };
}
