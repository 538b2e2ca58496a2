import 'server-only';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import type { MigrationExecutor } from '@/lib/server/migrate';

/**
 * Over one dedicated pg connection (not a pool): the advisory lock and
 * BEGIN…COMMIT must all happen on the same session.
 */
export function pgExecutor(client: pg.Client): MigrationExecutor {
  return {
    kind: 'postgres',
    async query<T>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as T[];
    },
    async exec(script: string) {
      // Without parameters pg uses the simple protocol: several statements at once.
      await client.query(script);
    },
  };
}

export function pgliteExecutor(db: PGlite): MigrationExecutor {
  return {
    kind: 'pglite',
    async query<T>(sql: string, params: unknown[] = []) {
      return (await db.query<T>(sql, params)).rows;
    },
    async exec(script: string) {
      await db.exec(script);
    },
  };
}
