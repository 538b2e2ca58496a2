import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRows, syntheticSession } from '@/lib/server/records/bulk-rows';
import { multiRowInsert, RECORD_COLUMNS, unnestInsert } from '@/lib/server/records/columns';

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
 * NULL until then. `logIndex` is the row's transparency-log leaf, set later
 * by the log appender, which finds its work as `logIndex IS NULL`; binding
 * an always-NULL parameter for it would cost every ingest a column per row
 * (fewer rows per multi-row statement) for nothing.
 */
const WRITTEN_AFTER_INSERT = ['logIndex'];

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

  it('are listed in one module only: every writer builds its INSERT from it', () => {
    const writers = ['lib', 'app', 'bench', 'scripts']
      .flatMap(sources)
      .filter((file) => /INSERT INTO "InterceptionRecord"/.test(readFileSync(file, 'utf8')));
    expect(writers).toEqual(['lib/server/records/columns.ts']);
  });

  it('synthetic rows fill exactly those columns', () => {
    const [row] = bulkRows(syntheticSession('t', 0, 2));
    expect(Object.keys(row).sort()).toEqual(RECORD_COLUMNS.map(([name]) => name).sort());
    expect(typeof row.timestamp).toBe('string');
  });

  it('both statements bind one value per column', () => {
    const rows = bulkRows(syntheticSession('t', 1, 3));
    const values = multiRowInsert('h', rows);
    expect(values.params).toHaveLength(1 + rows.length * RECORD_COLUMNS.length);
    const unnest = unnestInsert('h', rows, 'ON CONFLICT DO NOTHING');
    expect(unnest.params).toHaveLength(1 + RECORD_COLUMNS.length);
    expect(unnest.sql).toMatch(/ON CONFLICT DO NOTHING\s*$/);
  });
});
