import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRows, syntheticSession } from '@/lib/server/records/bulk-rows';
import {
  COPY_RECORDS_SQL,
  copyChunks,
  multiRowInsert,
  RECORD_COLUMNS,
  unnestInsert,
} from '@/lib/server/records/columns';
import { toHex } from '@/lib/proof';
import {
  isSealV2,
  recordSeal,
  recordSealV2,
  sealKeyFrom,
  sealV2Verifies,
  sealVerifies,
} from '@/lib/server/records/seal';
import { recordLeafHash } from '@/lib/verify/leaf-data';

const KEY = sealKeyFrom('unit-test-app-encryption-key-0123456789');
const HOST = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

const SCALARS = new Set(['String', 'Int', 'BigInt', 'Boolean', 'DateTime', 'Json']);

/** The field lines of a Prisma model. */
function modelLines(model: string): string[] {
  const schema = readFileSync('prisma/schema.prisma', 'utf8');
  const body = new RegExp(`model ${model} \\{([\\s\\S]*?)\\n\\}`).exec(schema)?.[1] ?? '';
  return body.split('\n');
}

/** Scalar columns of a Prisma model, in schema order (relation fields have a model type). */
function modelColumns(model: string): string[] {
  return modelLines(model)
    .map((line) => /^\s+(\w+)\s+(\w+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && SCALARS.has(m[2]))
    .map((m) => m[1]);
}

/**
 * Columns the insert leaves out on purpose (beyond the serial `id` and
 * `hostId`, bound once per statement): written after the row is stored and
 * NULL until then. None today: a record's transparency-log leaf is its
 * LogLeaf row, and the appender never updates the record.
 */
const WRITTEN_AFTER_INSERT: string[] = [];

/** The declaration line of `field` in `model`, or undefined. */
function modelField(model: string, field: string): string | undefined {
  return modelLines(model).find((line) => new RegExp(`^\\s+${field}\\s`).test(line));
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.(ts|tsx|mjs)$/.test(name) ? [path] : [];
  });
}

describe('records INSERT columns', () => {
  it('are every column of the model but id, hostId and those written after insert, in schema order', () => {
    const model = modelColumns('InterceptionRecord').filter(
      (c) => c !== 'id' && c !== 'hostId' && !WRITTEN_AFTER_INSERT.includes(c),
    );
    expect(RECORD_COLUMNS.map(([name]) => name)).toEqual(model);
  });

  it('leave out only nullable columns without a default, which the insert therefore stores as NULL', () => {
    for (const name of WRITTEN_AFTER_INSERT) {
      const line = modelField('InterceptionRecord', name);
      expect(line, `${name} is not a column of InterceptionRecord`).toBeDefined();
      expect(line).toMatch(new RegExp(`^\\s+${name}\\s+\\w+\\?\\s`));
      expect(line).not.toMatch(/@default/);
    }
  });

  it('are listed in one module only: every writer builds its INSERT or COPY from it', () => {
    const writers = ['lib', 'app', 'bench', 'scripts']
      .flatMap(sources)
      .filter((file) =>
        /INSERT INTO "InterceptionRecord"|COPY "InterceptionRecord"/.test(
          readFileSync(file, 'utf8'),
        ),
      );
    expect(writers).toEqual(['lib/server/records/columns.ts']);
  });

  it('the COPY carries what the INSERT binds, one line per row, in COPY text format', () => {
    const rows = bulkRows(syntheticSession('t', 4, 3));
    rows[1] = { ...rows[1], reason: 'tab\there, line\nnew, cr\r, back\\slash \\N', agentId: null };
    expect(COPY_RECORDS_SQL).toMatch(
      /^COPY "InterceptionRecord" \("hostId", "sessionId", .*\) FROM STDIN$/,
    );
    const text = [...copyChunks(HOST, rows, KEY)].join('');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(rows.length);
    // COPY's text format read back (PostgreSQL's rules, written out here).
    const copyRead = (cell: string) =>
      cell === '\\N'
        ? null
        : cell.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c);
    const unnest = unnestInsert(HOST, rows, '', KEY);
    lines.forEach((line, k) => {
      const cells = line.split('\t').map(copyRead);
      expect(cells).toHaveLength(1 + RECORD_COLUMNS.length);
      expect(cells[0]).toBe(HOST);
      RECORD_COLUMNS.forEach(([name], c) => {
        const bound = (unnest.params[1 + c] as unknown[])[k];
        const expected =
          bound === null ? null : typeof bound === 'boolean' ? (bound ? 't' : 'f') : String(bound);
        expect(cells[1 + c], name).toBe(expected);
      });
    });
    expect(
      copyRead(lines[1].split('\t')[1 + RECORD_COLUMNS.findIndex(([n]) => n === 'reason')]),
    ).toBe(rows[1].reason);
  });

  it('synthetic rows fill exactly those columns but the seal and leaf hash, which the statements compute', () => {
    const [row] = bulkRows(syntheticSession('t', 0, 2));
    expect(Object.keys(row).sort()).toEqual(
      RECORD_COLUMNS.map(([name]) => name)
        .filter((name) => name !== 'seal' && name !== 'leafHash')
        .sort(),
    );
    expect(typeof row.timestamp).toBe('string');
  });

  it('both statements bind one value per column', () => {
    const rows = bulkRows(syntheticSession('t', 1, 3));
    const values = multiRowInsert(HOST, rows, KEY);
    expect(values.params).toHaveLength(1 + rows.length * RECORD_COLUMNS.length);
    const unnest = unnestInsert(HOST, rows, 'ON CONFLICT DO NOTHING', KEY);
    expect(unnest.params).toHaveLength(1 + RECORD_COLUMNS.length);
    expect(unnest.sql).toMatch(/ON CONFLICT DO NOTHING\s*$/);
  });

  it('both statements store every row leaf hash and a v2 seal over it, and bind the receivedAt hashed', () => {
    const rows = bulkRows(syntheticSession('t', 2, 3));
    const at = RECORD_COLUMNS.findIndex(([name]) => name === 'seal');
    const leafAt = RECORD_COLUMNS.findIndex(([name]) => name === 'leafHash');
    const received = RECORD_COLUMNS.findIndex(([name]) => name === 'receivedAt');
    const unnest = unnestInsert(HOST, rows, '', KEY);
    const seals = unnest.params[1 + at] as string[];
    const leaves = unnest.params[1 + leafAt] as string[];
    const values = multiRowInsert(HOST, rows, KEY);
    rows.forEach((row, k) => {
      // The leaf hash is recordLeafHash (lib/verify, the one definition) of
      // the row as it reads back: the record parsed, not spliced.
      const expected = toHex(
        recordLeafHash({ hostId: HOST, ...row, record: JSON.parse(row.record) }),
      );
      expect(leaves[k]).toBe(expected);
      expect(seals[k]).toBe(recordSealV2(expected, KEY));
      expect(isSealV2(seals[k])).toBe(true);
      expect(sealV2Verifies(expected, seals[k], KEY)).toBe(true);
      expect(values.params[1 + k * RECORD_COLUMNS.length + at]).toBe(seals[k]);
      expect(values.params[1 + k * RECORD_COLUMNS.length + leafAt]).toBe(leaves[k]);
      expect((unnest.params[1 + received] as string[])[k]).toBe(row.receivedAt);
    });
    // The seal is bound to the leaf hash and the key, and is not a v1 seal.
    expect(sealV2Verifies(leaves[1], seals[0], KEY)).toBe(false);
    expect(
      sealV2Verifies(leaves[0], seals[0], sealKeyFrom('another-app-encryption-key-0123456789')),
    ).toBe(false);
    expect(sealV2Verifies(leaves[0], `${seals[0]}zz`, KEY)).toBe(false);
    expect(sealV2Verifies(leaves[0], seals[0].slice(3), KEY)).toBe(false);
    expect(sealVerifies({ hostId: HOST, ...rows[0] }, seals[0], KEY)).toBe(false);
  });

  it('v1 seals (over the row identity) still verify as before', () => {
    const [row] = bulkRows(syntheticSession('t', 3, 1));
    const fields = { hostId: HOST, ...row };
    const seal = recordSeal(fields, KEY);
    expect(isSealV2(seal)).toBe(false);
    expect(sealVerifies(fields, seal, KEY)).toBe(true);
    expect(sealVerifies({ ...fields, hostId: HOST.replace('6f', '7f') }, seal, KEY)).toBe(false);
    expect(sealVerifies({ ...fields, sequence: 9 }, seal, KEY)).toBe(false);
    expect(sealVerifies(fields, seal, sealKeyFrom('another-app-encryption-key-0123456789'))).toBe(
      false,
    );
  });
});
