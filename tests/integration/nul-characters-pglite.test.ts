import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, db, dbInfo } from '@/lib/server/db';
import type { ApiError } from '@/lib/server/http/api-error';
import { ingestRecords } from '@/lib/server/records/ingest';
import { makeRecord } from './records-fixtures';

/**
 * Issue 10 item 12 on the embedded database (the default install): PGlite
 * is PostgreSQL and cannot hold U+0000 either, so the ingest refuses the
 * record by position before the write, as on a server database.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ck-nul-pglite-'));
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

describe('U+0000 in records on PGlite', () => {
  it('is refused as nul_character by position; the batch without it is stored', async () => {
    expect(dbInfo().kind).toBe('pglite');
    const prisma = await db();
    const host = await prisma.host.create({ data: { name: 'pglite-nul' } });
    const poisoned = makeRecord('p', 1, { verdict: { decision: 'deny', reason: 'a\u0000b' } });
    const err = (await ingestRecords(host.id, [makeRecord('p', 0), poisoned]).catch(
      (e: unknown) => e,
    )) as ApiError;
    expect(err.code).toBe('records_invalid');
    expect(err.details).toEqual({
      errors: [
        expect.objectContaining({ index: 1, code: 'nul_character', path: '$.verdict.reason' }),
      ],
    });
    expect(await prisma.interceptionRecord.count()).toBe(0);
    expect(await ingestRecords(host.id, [makeRecord('p', 0), makeRecord('p', 1)])).toEqual({
      accepted: 2,
      duplicates: 0,
    });
  });
});
