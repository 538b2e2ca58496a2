import 'server-only';
import type { Db } from './store';

/**
 * Where the appender looks for records not in the log yet. Records carry no
 * leaf index (LogLeaf's unique (kind, "refId") index maps a record to its
 * leaf), so "not logged" is "no LogLeaf row and no LogRefusal row", found
 * by an anti-join over the records above `lowId` in id order.
 *
 * `lowId` may only pass an id once no transaction can still commit a record
 * at or below it. Ids come from a sequence, so a record inserted by a
 * transaction that was running when the appender read may commit later
 * with an id lower than rows already logged. Each pass therefore notes the
 * highest record id it could see and its snapshot's xmax (the first
 * transaction id not yet assigned when it read: PostgreSQL's
 * `pg_current_snapshot()`, PGlite too). Once a later pass's snapshot xmin
 * is at or past that xmax, every transaction that could own those ids has
 * ended, and when that pass has also handled every record it sees up to
 * that id, `lowId` moves there. Ingest takes its chain locks (a write, so
 * it has a transaction id) before it inserts records, so a record's id is
 * drawn after its transaction id.
 *
 * The table is not trusted for integrity: a `lowId` raised by hand skips
 * rows, which the verifiers then report (a row with neither leaf nor
 * refusal past the grace period, verify-rows.ts and audit/integrity-rows.ts);
 * a row missing or lowered only costs a longer scan.
 */

/** One pass not settled yet: the highest record id it saw, and its snapshot's xmax. */
type Pass = { id: string; xmax: string };

export type RecordCursor = {
  lowId: bigint;
  passes: Pass[];
  /** The snapshot of the pass reading it (xid8 as bigint). */
  xmin: bigint;
  /** The highest record id visible to that snapshot (0 for none). */
  maxId: bigint;
};

/** Passes kept unsettled at most; older ones are implied by newer ones (xmax only grows). */
const MAX_PASSES = 32;

function isPass(p: unknown): p is Pass {
  if (typeof p !== 'object' || p === null) return false;
  const { id, xmax } = p as Record<string, unknown>;
  return (
    typeof id === 'string' &&
    /^\d{1,19}$/.test(id) &&
    typeof xmax === 'string' &&
    /^\d{1,20}$/.test(xmax)
  );
}

/** Reads the cursor with the snapshot and highest record id of one statement. */
export async function readRecordCursor(tx: Db): Promise<RecordCursor> {
  const rows = await tx.$queryRawUnsafe<
    { lowId: string | null; passes: unknown; xmin: string; maxId: string | null }[]
  >(
    `SELECT c."lowId"::text AS "lowId", c.passes,
       pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
       (SELECT max(id) FROM "InterceptionRecord")::text AS "maxId"
     FROM (SELECT 1) one LEFT JOIN "LogRecordCursor" c ON c.id = 1`,
  );
  const row = rows[0];
  const passes = Array.isArray(row?.passes) ? row.passes.filter(isPass) : [];
  return {
    lowId: row?.lowId == null ? 0n : BigInt(row.lowId),
    passes,
    xmin: BigInt(row?.xmin ?? '0'),
    maxId: row?.maxId == null ? 0n : BigInt(row.maxId),
  };
}

/**
 * Stores the cursor after a pass that read `cursor` and handled every
 * pending record it saw with an id up to `handledThrough` (null: every
 * pending record it could see). The pass itself is noted with the xmax of
 * this statement's snapshot, taken after everything the pass read.
 */
export async function advanceRecordCursor(
  tx: Db,
  cursor: RecordCursor,
  handledThrough: bigint | null,
): Promise<void> {
  const through = handledThrough ?? cursor.maxId;
  let lowId = cursor.lowId;
  const open: Pass[] = [];
  for (const p of cursor.passes) {
    const id = BigInt(p.id);
    if (BigInt(p.xmax) <= cursor.xmin && id <= through) {
      if (id > lowId) lowId = id;
    } else if (id > lowId) {
      open.push(p);
    }
  }
  const kept = open.slice(-(MAX_PASSES - 1));
  await tx.$executeRawUnsafe(
    `INSERT INTO "LogRecordCursor" (id, "lowId", passes, "updatedAt")
     VALUES (1, $1::bigint, $2::jsonb || jsonb_build_array(jsonb_build_object(
       'id', $3::text, 'xmax', pg_snapshot_xmax(pg_current_snapshot())::text)), now())
     ON CONFLICT (id) DO UPDATE
       SET "lowId" = EXCLUDED."lowId", passes = EXCLUDED.passes, "updatedAt" = EXCLUDED."updatedAt"`,
    lowId.toString(),
    JSON.stringify(kept),
    cursor.maxId.toString(),
  );
}
