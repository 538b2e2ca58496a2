import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { type ChainHead, compareHead } from '@/lib/server/records/verify';
import { finding, type IntegrityFinding } from '@/lib/verify/findings';
import { DECISION_RECEIPT_GRACE_S } from './sources';

/**
 * The background verifier's checks outside the leaf walk (verifier.ts):
 * every session's stored chain head against its records, and rows the log
 * never took in.
 */

type Report = (f: IntegrityFinding) => void;

const SESSIONS_PER_QUERY = 500;
const UNLOGGED_LIMIT = 1_000;

type SessionRow = ChainHead & {
  hostId: string;
  sessionId: string;
  count: string;
  last: number | null;
  lastHash: string | null;
};

/**
 * Per session (SessionChain), one aggregate over its records: how many, the
 * highest sequence, the last chained hash, compared as the chain walk does
 * (records/verify.ts compareHead). Deleting a tail leaves every remaining
 * leaf intact; only the head says the session was longer.
 */
export async function checkSessionHeads(prisma: PrismaClient, report: Report): Promise<number> {
  let after = { hostId: '00000000-0000-0000-0000-000000000000', sessionId: '' };
  let first = true;
  let n = 0;
  for (;;) {
    const rows = await prisma.$queryRawUnsafe<SessionRow[]>(
      `SELECT c."hostId"::text AS "hostId", c."sessionId", c."headHash", c."lastSequence", c."recordCount",
         agg.count::text AS count, agg.last, agg."lastHash"
       FROM "SessionChain" c
       LEFT JOIN LATERAL (SELECT count(*) AS count, max(r.sequence) AS last,
           (array_agg(r."chainHash" ORDER BY r.id DESC))[1] AS "lastHash"
         FROM "InterceptionRecord" r
         WHERE r."hostId" = c."hostId" AND r."sessionId" = c."sessionId" AND NOT r."hostFailure") agg ON true
       WHERE $3::boolean OR (c."hostId", c."sessionId") > ($1::uuid, $2::text)
       ORDER BY c."hostId", c."sessionId" LIMIT ${SESSIONS_PER_QUERY}`,
      after.hostId,
      after.sessionId,
      first,
    );
    first = false;
    for (const row of rows) {
      n++;
      const found: ChainHead = {
        headHash: row.lastHash ?? '',
        lastSequence: row.last ?? -1,
        recordCount: Number(row.count),
      };
      const mismatch = compareHead(
        { headHash: row.headHash, lastSequence: row.lastSequence, recordCount: row.recordCount },
        found,
      );
      if (!mismatch) continue;
      const where = `session "${row.sessionId}" of host ${row.hostId}`;
      const at = { hostId: row.hostId, sessionId: row.sessionId, sequence: found.lastSequence };
      const counts = `${found.recordCount} records (last sequence ${found.lastSequence}) where its chain head says ${row.recordCount} (last sequence ${row.lastSequence})`;
      if (mismatch.problem === 'truncated') {
        report(finding('truncated', 'session', `${where} has ${counts}`, at));
      } else if (mismatch.problem === 'extra_records') {
        report(
          finding('forged', 'session', `${where} has ${counts}: rows were added beside ingest`, at),
        );
      } else {
        report(
          finding(
            'altered',
            'session',
            `${where} ends at a different record than its chain head (${counts})`,
            at,
          ),
        );
      }
    }
    if (rows.length < SESSIONS_PER_QUERY) return n;
    const last = rows[rows.length - 1];
    after = { hostId: last.hostId, sessionId: last.sessionId };
  }
}

async function tableExists(prisma: PrismaClient, name: string): Promise<boolean> {
  const rows = await prisma.$queryRawUnsafe<{ ok: boolean }[]>(
    `SELECT to_regclass($1) IS NOT NULL AS ok`,
    `"${name}"`,
  );
  return rows[0]?.ok === true;
}

/**
 * Rows the log never took in. The appender takes the oldest first, within
 * about one interval of ingest, so a row still outside after `graceMs` was
 * put there beside ingest (a backdated INSERT) — unless the appender itself
 * has stalled (no leaf appended within the grace), which is reported as
 * not_logged. Rows the appender refused ("LogRefusal", when the table
 * exists) are forged.
 */
export async function checkUnlogged(
  prisma: PrismaClient,
  graceMs: number,
  report: Report,
): Promise<void> {
  const cutoff = new Date(Date.now() - graceMs).toISOString();
  const lastAppend = await prisma.$queryRawUnsafe<{ stalled: boolean }[]>(
    `SELECT COALESCE(max("appendedAt") < $1::timestamp(3), true) AS stalled FROM "LogLeaf"`,
    cutoff,
  );
  const stalled = lastAppend[0]?.stalled ?? true;
  const refusals = await tableExists(prisma, 'LogRefusal');
  // A refused row is reported once, with the appender's reason (below).
  const notRefused = (kind: string, id: string) =>
    refusals
      ? `AND NOT EXISTS (SELECT 1 FROM "LogRefusal" f WHERE f.kind = '${kind}' AND f."refId" = ${id}::text)`
      : '';
  const records = await prisma.$queryRawUnsafe<
    { id: string; hostId: string; sessionId: string; sequence: number; receivedAt: string }[]
  >(
    `SELECT id::text AS id, "hostId"::text AS "hostId", "sessionId", sequence,
       to_char("receivedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "receivedAt"
     FROM "InterceptionRecord" r WHERE "receivedAt" < $1::timestamp(3)
       AND NOT EXISTS (SELECT 1 FROM "LogLeaf" l WHERE l.kind = 'record' AND l."refId" = r.id::text)
       ${notRefused('record', 'r.id')}
     ORDER BY "receivedAt", id LIMIT ${UNLOGGED_LIMIT}`,
    cutoff,
  );
  for (const r of records) {
    const what = `record ${r.id} (host ${r.hostId}, session "${r.sessionId}", sequence ${r.sequence}), stored ${r.receivedAt}`;
    report(
      stalled
        ? finding(
            'not_logged',
            'record',
            `${what}, is not in the log yet: the appender has not appended anything recently`,
            {
              recordId: r.id,
              hostId: r.hostId,
              sessionId: r.sessionId,
              sequence: r.sequence,
            },
          )
        : finding(
            'forged',
            'record',
            `${what}, was never appended to the log although later rows were: it did not come through ingest`,
            {
              recordId: r.id,
              hostId: r.hostId,
              sessionId: r.sessionId,
              sequence: r.sequence,
            },
          ),
    );
  }
  const decisionCutoff = new Date(Date.now() - graceMs - DECISION_RECEIPT_GRACE_S * 1000);
  const decisions = await prisma.$queryRawUnsafe<
    { id: string; ticketId: string; hostId: string }[]
  >(
    `SELECT d.id::text AS id, d."ticketId"::text AS "ticketId", t."hostId"::text AS "hostId"
     FROM "Decision" d JOIN "ApprovalTicket" t ON t.id = d."ticketId"
     WHERE d."logIndex" IS NULL AND d."createdAt" < $1::timestamp(3) ${notRefused('decision', 'd.id')}
     ORDER BY d."createdAt", d.id LIMIT ${UNLOGGED_LIMIT}`,
    decisionCutoff.toISOString(),
  );
  for (const d of decisions) {
    const what = `decision ${d.id} of ticket ${d.ticketId}`;
    report(
      finding(
        stalled ? 'not_logged' : 'forged',
        'decision',
        stalled ? `${what} is not in the log yet` : `${what} was never appended to the log`,
        { ticketId: d.ticketId, hostId: d.hostId },
      ),
    );
  }
  if (refusals) await checkRefusals(prisma, report);
}

async function checkRefusals(prisma: PrismaClient, report: Report): Promise<void> {
  const rows = await prisma.$queryRawUnsafe<
    {
      kind: string;
      refId: string;
      reason: string;
      hostId: string | null;
      sessionId: string | null;
      sequence: number | null;
      ticketId: string | null;
    }[]
  >(
    `SELECT f.kind, f."refId", f.reason, COALESCE(r."hostId", t."hostId")::text AS "hostId",
       r."sessionId", r.sequence, d."ticketId"::text AS "ticketId"
     FROM "LogRefusal" f
     LEFT JOIN LATERAL (SELECT r1."hostId", r1."sessionId", r1.sequence FROM "InterceptionRecord" r1
       WHERE r1.id = (CASE WHEN f.kind = 'record' AND f."refId" ~ '^[0-9]{1,18}$' THEN f."refId" END)::bigint
       LIMIT 1) r ON true
     LEFT JOIN LATERAL (SELECT d1."ticketId" FROM "Decision" d1
       WHERE d1.id = (CASE WHEN f.kind = 'decision' AND f."refId" ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' THEN f."refId" END)::uuid
       LIMIT 1) d ON true
     LEFT JOIN LATERAL (SELECT t1."hostId" FROM "ApprovalTicket" t1 WHERE t1.id = d."ticketId" LIMIT 1) t ON true
     ORDER BY f."refusedAt" LIMIT ${UNLOGGED_LIMIT}`,
  );
  for (const r of rows) {
    const subject = r.kind === 'decision' ? 'decision' : 'record';
    const where =
      subject === 'record' && r.sessionId !== null
        ? `record ${r.refId} (host ${r.hostId}, session "${r.sessionId}", sequence ${r.sequence})`
        : `${r.kind} ${r.refId}`;
    report(
      finding('forged', subject, `${where} was refused by the log: ${r.reason}`, {
        recordId: subject === 'record' ? r.refId : null,
        ticketId: r.ticketId,
        hostId: r.hostId,
        sessionId: r.sessionId,
        sequence: r.sequence,
      }),
    );
  }
}
