import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AppliedRow,
  checksumOf,
  type Migration,
  matchesChecksum,
  planMigrations,
  readMigrations,
} from '@/lib/server/migrate';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ck-migrate-unit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function folder(files: Record<string, string | null>): string {
  const dir = mkdtempSync(path.join(tmp, 'm-'));
  for (const [name, sql] of Object.entries(files)) {
    mkdirSync(path.join(dir, name));
    if (sql !== null) writeFileSync(path.join(dir, name, 'migration.sql'), sql);
  }
  return dir;
}

const m = (name: string, sql = `-- ${name}\n`): Migration => ({
  name,
  sql,
  checksum: checksumOf(sql),
});
const row = (mig: Migration, over: Partial<AppliedRow> = {}): AppliedRow => ({
  migration_name: mig.name,
  checksum: mig.checksum,
  finished_at: new Date(),
  rolled_back_at: null,
  logs: null,
  ...over,
});

describe('checksums (Prisma: sha256 hex of the file)', () => {
  it('is the SHA-256 of the bytes, hex (FIPS 180-2 test vector "abc")', () => {
    expect(checksumOf('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('matches a file whose line endings changed either way, and nothing else', () => {
    const lf = 'CREATE TABLE a (id int);\nCREATE TABLE b (id int);\n';
    const crlf = lf.replace(/\n/g, '\r\n');
    expect(matchesChecksum(crlf, checksumOf(lf))).toBe(true);
    expect(matchesChecksum(lf, checksumOf(crlf))).toBe(true);
    expect(matchesChecksum(`${lf} `, checksumOf(lf))).toBe(false);
  });
});

describe('readMigrations', () => {
  it('lists migration folders in name order, ignoring loose files', () => {
    const dir = folder({ '20260102_b': 'B', '20260101_a': 'A', '20261231_c': 'C' });
    writeFileSync(path.join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
    const list = readMigrations(dir);
    expect(list.map((x) => x.name)).toEqual(['20260101_a', '20260102_b', '20261231_c']);
    expect(list[0]).toEqual({ name: '20260101_a', sql: 'A', checksum: checksumOf('A') });
  });

  it('refuses a migration folder without migration.sql', () => {
    const dir = folder({ '20260101_a': 'A', '20260102_empty': null });
    expect(() => readMigrations(dir)).toThrow(
      expect.objectContaining({ code: 'migration_file_missing' }),
    );
  });

  it('refuses a missing migrations directory', () => {
    expect(() => readMigrations(path.join(tmp, 'nope'))).toThrow(
      expect.objectContaining({ code: 'migrations_dir_missing' }),
    );
  });

  it('reads the project migrations, the init migration first', () => {
    expect(readMigrations()[0].name).toMatch(/^\d{14}_init$/);
  });
});

describe('planMigrations', () => {
  const a = m('20260101_a');
  const b = m('20260102_b');

  it('plans what is not applied yet, in order', () => {
    expect(planMigrations([a, b], [row(a)])).toEqual({
      pending: [b],
      alreadyApplied: [a.name],
      unknown: [],
    });
  });

  it('stops on an applied migration whose file changed', () => {
    const edited = {
      ...a,
      sql: `${a.sql}DROP TABLE x;\n`,
      checksum: checksumOf(`${a.sql}DROP TABLE x;\n`),
    };
    expect(() => planMigrations([edited, b], [row(a)])).toThrow(
      expect.objectContaining({ code: 'migration_checksum_mismatch' }),
    );
  });

  it('stops on a migration left unfinished by an earlier run', () => {
    expect(() => planMigrations([a, b], [row(a, { finished_at: null, logs: 'boom' })])).toThrow(
      expect.objectContaining({
        code: 'migration_failed_previously',
        message: expect.stringContaining('boom'),
      }),
    );
  });

  it('treats rolled-back rows as not applied (even a failed one)', () => {
    const rolled = row(a, { finished_at: null, rolled_back_at: new Date() });
    expect(planMigrations([a, b], [rolled]).pending).toEqual([a, b]);
  });

  it('reports rows with no folder (a newer version migrated this database) without failing', () => {
    const future = m('20990101_future');
    expect(planMigrations([a], [row(a), row(future)]).unknown).toEqual([future.name]);
  });
});
