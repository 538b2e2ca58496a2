import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, db, dbInfo } from '@/lib/server/db';
import type { ApiError } from '@/lib/server/http/api-error';
import { ingestRecords } from '@/lib/server/records/ingest';
import { runRecordsRetention } from '@/lib/server/records/retention';
import { verifySessionChain } from '@/lib/server/records/verify';
import { hostFailureRecord, makeRecord } from './records-fixtures';

/**
 * The embedded database is the default install: the ingest's raw SQL
 * (unnest, FOR UPDATE, ON CONFLICT … RETURNING) must run on PGlite too.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ck-records-pglite-'));
const saved = { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR };

beforeAll(async () => {
  await closeDb();
  delete process.env.DATABASE_URL;
  process.env.DATA_DIR = dataDir;
});
afterAll(async () => {
  await closeDb();
  Object.assign(process.env, saved);
  if (saved.DATA_DIR === undefined) delete process.env.DATA_DIR;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('records on the embedded PGlite database', () => {
  it('ingests, dedupes, refuses conflicts, verifies and runs retention', async () => {
    expect(dbInfo().kind).toBe('pglite');
    const prisma = await db();
    const host = await prisma.host.create({ data: { name: 'pglite-host' } });
    const batch = [0, 1, 2].map((i) => makeRecord('p', i));
    expect(
      await ingestRecords(host.id, [...batch, hostFailureRecord('x')], { agentId: 'a' }),
    ).toEqual({
      accepted: 4,
      duplicates: 0,
    });
    expect(await ingestRecords(host.id, [batch[2], makeRecord('p', 3)])).toEqual({
      accepted: 1,
      duplicates: 1,
    });
    const conflict = await ingestRecords(host.id, [
      makeRecord('p', 0, { mode: 'evaluate_only' }),
    ]).catch((e: unknown) => e);
    expect((conflict as ApiError).code).toBe('record_conflict');
    expect(await verifySessionChain(host.id, 'p')).toEqual({
      ok: true,
      checked: 4,
      firstBrokenSequence: null,
      gaps: [],
    });
    expect(await runRecordsRetention(prisma, { trigger: 'manual' })).toMatchObject({
      recordsDeleted: 0,
      hostFailuresDeleted: 0,
    });
  });
});
