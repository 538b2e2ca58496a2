import 'server-only';
import type { Db } from '@/lib/server/transparency/store';

/**
 * The session-wide half of the timeline's check (issue 13 item 4, issue 16
 * item 3), cheap at any session size: ONE statement over the session's
 * (id, sequence, chainHash, prevHash) columns, no record JSON and no
 * hashing, returning only aggregates and the rows that look wrong.
 *
 * What it proves, given the stored hash columns:
 * - links: every row's prevHash is the chainHash of the row stored just
 *   before it (id order, the order ingest chained them), so no record was
 *   removed from between two others and no rows were moved, unless the
 *   hash columns themselves were rewritten to match;
 * - sequences: no holes between the lowest (0) and the highest;
 * - head: the number of rows, the highest sequence and the last row's
 *   chainHash agree with the session's stored chain head (SessionChain), so
 *   a deleted tail or a row added beside ingest shows.
 * What it does not prove: that a row's content still hashes to its stored
 * chainHash, or that the row matches its log leaf. A rewrite of the hash
 * columns consistent with itself is caught by the per-row leaf check (the
 * rows a page shows) and by the background verifier (the whole log).
 */
export type SessionStructure = {
  /** Rows in the session (host failures excluded). */
  count: number;
  /** Highest sequence, -1 when empty. */
  lastSequence: number;
  /** The id-last row's chainHash ('' when empty): what the stored head should say. */
  headHash: string;
  /** The first row (by id) holding the highest sequence, for naming it. */
  lastRow: { id: string; sequence: number } | null;
  /** Rows with a sequence at or below the page's `after`: where the page starts. */
  before: number;
  /** Rows whose prevHash is not the chainHash of the row stored before them, by id, capped. */
  breaks: LinkBreak[];
  breakCount: number;
  /** Sequence holes in sequence order, capped; `after` -1 for a session not starting at 0. */
  gaps: Gap[];
  gapCount: number;
};

export type LinkBreak = {
  id: string;
  sequence: number;
  /** The row stored just before it (id order), null for the first row. */
  prevId: string | null;
  prevSequence: number | null;
};

export type Gap = { after: number; before: number; afterId: string | null; beforeId: string };

/**
 * `pageFrom`..`pageTo` (sequences) are always included in `breaks` beyond
 * the cap, so every row a page shows knows whether its link holds.
 */
export async function readStructure(
  tx: Db,
  hostId: string,
  sessionId: string,
  opts: { after: number; pageFrom: number; pageTo: number; cap: number },
): Promise<SessionStructure> {
  return (
    (await readIfRegular(tx, hostId, sessionId, opts.after)) ??
    readAnomalies(tx, hostId, sessionId, opts)
  );
}

/**
 * The common case in one pass, with no sort: read in id order (the
 * structure index, index-only), a session whose sequences are exactly 0, 1,
 * 2, … and whose every link holds has no gaps and no breaks, and its last
 * row by id is its head. Null when any row is irregular: then
 * readAnomalies() names them. Issue 16 item 3: a 100,000-record session's
 * structure in about half the time of the general query.
 */
async function readIfRegular(
  tx: Db,
  hostId: string,
  sessionId: string,
  after: number,
): Promise<SessionStructure | null> {
  const [r] = await tx.$queryRawUnsafe<
    Array<{
      count: number;
      lastSequence: number;
      before: number;
      irregular: boolean | null;
      lastId: string | null;
      headHash: string | null;
    }>
  >(
    `WITH l AS (
       SELECT sequence,
         "prevHash" IS DISTINCT FROM lag("chainHash") OVER w
           OR sequence <> coalesce(lag(sequence) OVER w, -1) + 1 AS irregular
       FROM "InterceptionRecord"
       WHERE "hostId" = $1::uuid AND "sessionId" = $2 AND NOT "hostFailure"
       WINDOW w AS (ORDER BY id)
     ), a AS (
       SELECT count(*)::int AS count, coalesce(max(sequence), -1) AS "lastSequence",
         (count(*) FILTER (WHERE sequence <= $3))::int AS before, bool_or(irregular) AS irregular
       FROM l
     )
     SELECT a.*, t.id::text AS "lastId", t."chainHash" AS "headHash"
     FROM a LEFT JOIN LATERAL (
       SELECT id, "chainHash" FROM "InterceptionRecord"
       WHERE "hostId" = $1::uuid AND "sessionId" = $2 AND NOT "hostFailure"
       ORDER BY id DESC LIMIT 1) t ON true`,
    hostId,
    sessionId,
    after,
  );
  if (!r || r.irregular === true) return null;
  return {
    count: r.count,
    lastSequence: r.lastSequence,
    headHash: r.headHash ?? '',
    lastRow: r.lastId === null ? null : { id: r.lastId, sequence: r.lastSequence },
    before: r.before,
    breaks: [],
    breakCount: 0,
    gaps: [],
    gapCount: 0,
  };
}

/** The general query: both orders, every anomaly named (capped). */
async function readAnomalies(
  tx: Db,
  hostId: string,
  sessionId: string,
  opts: { after: number; pageFrom: number; pageTo: number; cap: number },
): Promise<SessionStructure> {
  const rows = await tx.$queryRawUnsafe<
    Array<Omit<SessionStructure, 'lastRow'> & { lastId: string | null; lastRowSequence: number }>
  >(
    `WITH s AS MATERIALIZED (
       SELECT id, sequence, "chainHash", "prevHash" FROM "InterceptionRecord"
       WHERE "hostId" = $1::uuid AND "sessionId" = $2 AND NOT "hostFailure"
     ), l AS (
       SELECT id, sequence, "prevHash" IS DISTINCT FROM lag("chainHash") OVER w AS broken,
         lag(id) OVER w AS "prevId", lag(sequence) OVER w AS "prevSequence"
       FROM s WINDOW w AS (ORDER BY id)
     ), b AS (SELECT * FROM l WHERE broken), g AS (
       SELECT id, sequence, lag(sequence) OVER w AS "seqBefore", lag(id) OVER w AS "idBefore"
       FROM s WINDOW w AS (ORDER BY sequence, id)
     ), h AS (SELECT * FROM g WHERE sequence > coalesce("seqBefore", -1) + 1),
     a AS (
       SELECT count(*)::int AS count, coalesce(max(sequence), -1) AS "lastSequence",
         (count(*) FILTER (WHERE sequence <= $3))::int AS before
       FROM s
     )
     SELECT a.count, a."lastSequence", a.before, a."lastSequence" AS "lastRowSequence",
       coalesce((SELECT "chainHash" FROM s ORDER BY id DESC LIMIT 1), '') AS "headHash",
       (SELECT id::text FROM s ORDER BY sequence DESC, id LIMIT 1) AS "lastId",
       (SELECT count(*)::int FROM b) AS "breakCount",
       (SELECT coalesce(json_agg(x ORDER BY x.id::bigint), '[]'::json) FROM (
          (SELECT id::text AS id, sequence, "prevId"::text AS "prevId", "prevSequence"
           FROM b ORDER BY b.id LIMIT $6)
          UNION
          (SELECT id::text AS id, sequence, "prevId"::text AS "prevId", "prevSequence"
           FROM b WHERE sequence BETWEEN $4 AND $5)) x) AS breaks,
       (SELECT count(*)::int FROM h) AS "gapCount",
       (SELECT coalesce(json_agg(x ORDER BY x.before), '[]'::json) FROM (
          SELECT coalesce("seqBefore", -1) AS after, sequence AS before,
            "idBefore"::text AS "afterId", id::text AS "beforeId"
          FROM h ORDER BY sequence LIMIT $6) x) AS gaps
     FROM a`,
    hostId,
    sessionId,
    opts.after,
    opts.pageFrom,
    opts.pageTo,
    opts.cap,
  );
  const r = rows[0];
  if (!r) throw new Error('the structure query returned no row');
  const { lastId, lastRowSequence, ...rest } = r;
  return { ...rest, lastRow: lastId === null ? null : { id: lastId, sequence: lastRowSequence } };
}
