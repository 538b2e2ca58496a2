import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';
import type pg from 'pg';

/**
 * Prisma's own schema engine (the WASM build from npm), driven over the pg
 * driver adapter, to ask it what Prisma thinks of a live database: the
 * judge of "the migrations produce exactly schema.prisma". Test-only.
 */

const PG_CHAR_OID = 18; // Postgres' internal one-byte "char" (pg_constraint.contype, …)

let loaded = false;
function loadWasm(): void {
  if (loaded) return;
  const require = createRequire(import.meta.url);
  const glue = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bytes = readFileSync(path.join(path.dirname(glue), 'schema_engine_bg.wasm'));
  const module = new WebAssembly.Module(bytes);
  const instance = new WebAssembly.Instance(module, {
    './schema_engine_bg.js': bg as unknown as WebAssembly.ModuleImports,
  });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  // The engine reports a Rust panic through this global before throwing.
  (globalThis as Record<string, unknown>).PRISMA_WASM_PANIC_REGISTRY = {
    set_message: (m: string) => {
      lastPanic = m;
    },
  };
  loaded = true;
}
let lastPanic: string | undefined;

type Queryable = Pick<SqlDriverAdapter, 'queryRaw'> & {
  performIO?: (q: SqlQuery) => Promise<pg.QueryResult>;
};

/**
 * @prisma/adapter-pg has no column type for "char" and throws on the
 * catalog queries the engine runs. Report such columns to the adapter as
 * text, remember them by the identity of the result's rows array (which
 * the adapter passes through untouched), and label them Character after.
 */
function withCharColumns<T extends Queryable>(target: T): T {
  const charColumns = new WeakMap<unknown[], number[]>();
  const performIO = target.performIO?.bind(target);
  if (!performIO) throw new Error('@prisma/adapter-pg changed: performIO is gone');
  target.performIO = async (q) => {
    const res = await performIO(q);
    const idx: number[] = [];
    res.fields.forEach((f, i) => {
      if (f.dataTypeID === PG_CHAR_OID) {
        f.dataTypeID = 25; // text
        idx.push(i);
      }
    });
    if (idx.length > 0) charColumns.set(res.rows, idx);
    return res;
  };
  const queryRaw = target.queryRaw.bind(target);
  target.queryRaw = async (q: SqlQuery): Promise<SqlResultSet> => {
    const rs = await queryRaw(q);
    for (const i of charColumns.get(rs.rows) ?? []) rs.columnTypes[i] = ColumnTypeEnum.Character;
    return rs;
  };
  return target;
}

function patchAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  withCharColumns(adapter as SqlDriverAdapter & Queryable);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (level) => {
    const tx = await startTransaction(level);
    return withCharColumns(tx as Transaction & Queryable);
  };
  return adapter;
}

/** pg options from a URL, as discrete fields so that a `database` override sticks. */
function pgConfig(url: string): pg.ClientConfig {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username) || undefined,
    password: decodeURIComponent(u.password) || undefined,
    database: decodeURIComponent(u.pathname.slice(1)),
  };
}

/** The pg adapter on a local database, fit for the engine's catalog queries. */
export function pgAdapterFactory(url: string): SqlMigrationAwareDriverAdapterFactory {
  const cfg = pgConfig(url);
  const factory = new PrismaPg(cfg);
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => patchAdapter(await factory.connect()),
    connectToShadowDb: async () => {
      throw new Error('no shadow database: these checks only read the live database');
    },
  };
}

export interface SchemaDiff {
  /** The SQL that would turn the live database into the schema; '' when equal. */
  script: string;
  empty: boolean;
}

export interface SchemaEngineHandle {
  /** Diff from the live database to a Prisma schema (its text). */
  diffDatabaseToSchema(schema: string): Promise<SchemaDiff>;
  /** Names `prisma migrate deploy` would still apply from `migrationsDir`. */
  pendingMigrations(migrationsDir: string): Promise<string[]>;
  close(): void;
}

const filters = { externalTables: [], externalEnums: [] };

function migrationsList(dir: string) {
  const names = readdirNames(dir);
  return {
    baseDir: dir,
    lockfile: {
      path: 'migration_lock.toml',
      content: readOptional(path.join(dir, 'migration_lock.toml')),
    },
    shadowDbInitScript: '',
    migrationDirectories: names.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: {
          tag: 'ok' as const,
          value: readFileSync(path.join(dir, name, 'migration.sql'), 'utf8'),
        },
      },
    })),
  };
}

function readOptional(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function readdirNames(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/**
 * An engine bound to one live database: a local Postgres (`pgAdapterFactory`)
 * or a PGlite (`new PrismaPGlite(db)`).
 */
export async function openSchemaEngine(
  factory: SqlMigrationAwareDriverAdapterFactory,
  schemaPath: string,
): Promise<SchemaEngineHandle> {
  loadWasm();
  const datamodel = readFileSync(schemaPath, 'utf8');
  const engine = await bg.SchemaEngine.new(
    { datamodels: [[schemaPath, datamodel]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(factory),
  ).catch((err: unknown) => {
    throw new Error(`schema engine failed to start: ${String(err)} ${lastPanic ?? ''}`);
  });
  return {
    async diffDatabaseToSchema(schema) {
      const res = await engine.diff({
        from: {
          tag: 'schemaDatasource',
          files: [{ path: schemaPath, content: datamodel }],
          configDir: path.dirname(schemaPath),
        },
        to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
        script: true,
        exitCode: true,
        filters,
      });
      const script = (res.stdout ?? '').trim();
      return { script, empty: res.exitCode === 0 };
    },
    async pendingMigrations(dir) {
      const out = await engine.diagnoseMigrationHistory({
        migrationsList: migrationsList(dir),
        optInToShadowDatabase: false,
        filters,
      });
      const h = out.history;
      if (!h) return [];
      if (h.diagnostic === 'databaseIsBehind') return h.unappliedMigrationNames;
      throw new Error(`migration history: ${JSON.stringify(h)}`);
    },
    close() {
      engine.free();
    },
  };
}
