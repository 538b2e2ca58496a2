import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as postApproval } from '@/app/api/v1/approvals/route';
import { POST as postRecords } from '@/app/api/v1/records/route';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { closeDb } from '@/lib/server/db';
import { openDatabase, type PgLimits } from '@/lib/server/db/open';
import { errorToResponse } from '@/lib/server/http/route';
import { approvalRequest, hostWithKey, postRequest, transferContext } from './approvals-fixtures';
import { closeTestDb, testDatabaseUrl, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';
import { makeRecord, noParams, recordsRequest } from './records-fixtures';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Issue 17: with a table locked or the database gone, host API calls
 * answered nothing (hung) or a 500. Now the pool bounds lock waits,
 * statements and connection waits (DATABASE_*_TIMEOUT_MS), and route()
 * answers 503 with Retry-After and a stable code. The limits are set small
 * here, before anything reads the configuration.
 */
const LIMITS = vi.hoisted(() => {
  const limits = {
    statementTimeoutMs: 1_500,
    lockTimeoutMs: 400,
    connectTimeoutMs: 800,
    poolMax: 4,
  };
  process.env.DATABASE_STATEMENT_TIMEOUT_MS = String(limits.statementTimeoutMs);
  process.env.DATABASE_LOCK_TIMEOUT_MS = String(limits.lockTimeoutMs);
  process.env.DATABASE_CONNECT_TIMEOUT_MS = String(limits.connectTimeoutMs);
  process.env.DATABASE_POOL_MAX = String(limits.poolMax);
  return limits as PgLimits;
});

/** A port nothing listens on: bound once by us, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Holds an ACCESS EXCLUSIVE lock on `table` from a separate session until `release()`. */
async function lockTable(table: string) {
  const locker = new pg.Client({ connectionString: testDatabaseUrl() });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
    },
  };
}

async function answer(res: Response) {
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    // biome-ignore lint/suspicious/noExplicitAny: read loosely, asserted below
    body: (await res.json()) as any,
  };
}

describe('database outages answer 503 with Retry-After (issue 17)', () => {
  let host: { id: string; key: string };

  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(async () => {
    await truncateAll();
    host = await hostWithKey('outage', { defaultTimeoutMs: 600_000, maxTimeoutMs: 3_600_000 });
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
    for (const name of ['STATEMENT', 'LOCK', 'CONNECT']) {
      delete process.env[`DATABASE_${name}_TIMEOUT_MS`];
    }
    delete process.env.DATABASE_POOL_MAX;
  });

  it('a locked table: approval intake answers 503 database_timeout within the lock timeout, then recovers', async () => {
    const lock = await lockTable('ApprovalTicket');
    const body = approvalRequest(transferContext());
    let res: Awaited<ReturnType<typeof answer>>;
    const started = Date.now();
    try {
      res = await answer(await postApproval(postRequest(host.key, body), noParams));
    } finally {
      await lock.release();
    }
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('database_timeout');
    expect(Number(res.retryAfter)).toBeGreaterThan(0);
    // Bounded by the lock timeout (plus the work around it), far from a hang.
    expect(elapsed).toBeLessThan(LIMITS.statementTimeoutMs + 1_500);
    // Nothing was stored, and with the lock gone the same request succeeds.
    const prisma = await testDb();
    expect(await prisma.approvalTicket.count()).toBe(0);
    const again = await postApproval(postRequest(host.key, body), noParams);
    expect(again.status).toBe(201);
  });

  it('a locked table: records ingest answers 503 database_timeout too', async () => {
    const lock = await lockTable('InterceptionRecord');
    let res: Awaited<ReturnType<typeof answer>>;
    const started = Date.now();
    try {
      const text = JSON.stringify([makeRecord('s-lock', 0)]);
      res = await answer(await postRecords(recordsRequest(host.key, text), noParams));
    } finally {
      await lock.release();
    }
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'database_timeout' });
    expect(res.retryAfter).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(LIMITS.statementTimeoutMs + 1_500);
    expect(await (await testDb()).interceptionRecord.count()).toBe(0);
  });

  it('a statement past DATABASE_STATEMENT_TIMEOUT_MS is cancelled and maps to 503 database_timeout', async () => {
    const prisma = await testDb();
    const started = Date.now();
    const err = await prisma.$queryRaw`SELECT 1 AS one FROM pg_sleep(10)`.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(LIMITS.statementTimeoutMs + 1_500);
    const res = await answer(errorToResponse(err));
    expect([res.status, res.body.error.code]).toEqual([503, 'database_timeout']);
    expect(res.retryAfter).not.toBeNull();
  });

  it('an unreachable database: the host API answers 503 database_unavailable, not 500', async () => {
    const port = await closedPort();
    const slot = globalThis as typeof globalThis & { __checkpointDb?: unknown };
    // The process's client swapped for one on a closed port, as if the server went away.
    await closeDb();
    slot.__checkpointDb = openDatabase({
      kind: 'postgres',
      url: `postgresql://postgres@127.0.0.1:${port}/gone`,
      limits: LIMITS,
    });
    try {
      const started = Date.now();
      const res = await answer(
        await postApproval(postRequest(host.key, approvalRequest(transferContext())), noParams),
      );
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('database_unavailable');
      expect(Number(res.retryAfter)).toBeGreaterThan(0);
      expect(JSON.stringify(res.body)).not.toContain(String(port));
      expect(Date.now() - started).toBeLessThan(LIMITS.connectTimeoutMs + 2_000);
    } finally {
      await closeDb();
    }
    // The real database again: the next db() opens it from the configuration.
    expect(await (await testDb()).host.count()).toBe(1);
  });

  it('a pool with no free connection: the waiter gives up after the connect timeout, 503 database_unavailable', async () => {
    const handle = await openDatabase({
      kind: 'postgres',
      url: testDatabaseUrl(),
      limits: { ...LIMITS, poolMax: 1, statementTimeoutMs: 5_000 },
    });
    try {
      // Holds the only connection for ~2 s (a Prisma query starts when awaited: `then` starts it).
      const busy = handle.client.$queryRaw`SELECT 1 AS one FROM pg_sleep(2)`.then(
        () => 'done',
        (e: unknown) => e,
      );
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      const err = await handle.client.host.count().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).not.toBeNull();
      expect(Date.now() - started).toBeLessThan(1_900);
      const res = await answer(errorToResponse(err));
      expect([res.status, res.body.error.code]).toEqual([503, 'database_unavailable']);
      // The holder itself was not disturbed.
      expect(await busy).toBe('done');
    } finally {
      await handle.close();
    }
  });
});
