import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '@/lib/server/config';

/**
 * Retention: the ONLY path that deletes InterceptionRecords (there is no
 * update path at all). Age is counted per session, from its last append
 * (SessionChain.updatedAt): a whole session goes at once, together with its
 * chain head, so a kept session always verifies from its first record.
 * Host-failure records (outside every session) go by their own age. Work is
 * done in chunks, each its own short transaction; every run leaves an
 * AuditEvent with the counts, or with the reason it did nothing.
 */

export const RETENTION_SETTING_KEY = 'records.retentionDays';
export const RETENTION_ACTION = 'records.retention';
const SESSIONS_PER_CHUNK = 100;
const ROWS_PER_CHUNK = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

export type RetentionOutcome =
  | { skipped: 'invalid_setting'; setting: unknown }
  | {
      retentionDays: number;
      cutoff: string;
      sessionsDeleted: number;
      recordsDeleted: number;
      hostFailuresDeleted: number;
    };

/** The AppSetting when present (and valid), else RECORDS_RETENTION_DAYS; null = invalid, do nothing. */
export async function retentionDays(prisma: PrismaClient): Promise<number | null> {
  const row = await prisma.appSetting.findUnique({ where: { key: RETENTION_SETTING_KEY } });
  if (!row) return config().RECORDS_RETENTION_DAYS;
  const v = row.value;
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 36_500 ? v : null;
}

export async function runRecordsRetention(
  prisma: PrismaClient,
  opts: { trigger: 'schedule' | 'manual'; jobId?: string; now?: Date },
): Promise<RetentionOutcome> {
  const days = await retentionDays(prisma);
  if (days === null) {
    const setting = (await prisma.appSetting.findUnique({ where: { key: RETENTION_SETTING_KEY } }))
      ?.value;
    const outcome = { skipped: 'invalid_setting' as const, setting };
    await audit(prisma, opts, outcome);
    return outcome;
  }
  const cutoff = new Date((opts.now ?? new Date()).getTime() - days * DAY_MS);
  let sessionsDeleted = 0;
  let recordsDeleted = 0;
  for (;;) {
    const chunk = await deleteSessionChunk(prisma, cutoff);
    sessionsDeleted += chunk.sessions;
    recordsDeleted += chunk.records;
    if (chunk.sessions < SESSIONS_PER_CHUNK) break;
  }
  let hostFailuresDeleted = 0;
  for (;;) {
    const n = await deleteMarkingLeaves(
      prisma,
      `DELETE FROM "InterceptionRecord" WHERE id IN (
         SELECT id FROM "InterceptionRecord"
         WHERE "hostFailure" AND "receivedAt" < $1::timestamp(3) LIMIT ${ROWS_PER_CHUNK})
       RETURNING id`,
      cutoff.toISOString(),
    );
    hostFailuresDeleted += n;
    if (n < ROWS_PER_CHUNK) break;
  }
  const outcome = {
    retentionDays: days,
    cutoff: cutoff.toISOString(),
    sessionsDeleted,
    recordsDeleted,
    hostFailuresDeleted,
  };
  await audit(prisma, opts, outcome);
  return outcome;
}

/**
 * One chunk of expired sessions. Their chain rows are locked (SKIP LOCKED:
 * a session being appended to right now is simply left for the next run)
 * and deleted with their records in one transaction, so an append can never
 * land on a half-deleted session.
 */
async function deleteSessionChunk(prisma: PrismaClient, cutoff: Date) {
  return prisma.$transaction(async (tx) => {
    const sessions = await tx.$queryRawUnsafe<{ hostId: string; sessionId: string }[]>(
      `SELECT "hostId"::text AS "hostId", "sessionId" FROM "SessionChain"
       WHERE "updatedAt" < $1::timestamp(3)
       ORDER BY "updatedAt" LIMIT ${SESSIONS_PER_CHUNK} FOR UPDATE SKIP LOCKED`,
      cutoff.toISOString(),
    );
    if (sessions.length === 0) return { sessions: 0, records: 0 };
    const hosts = sessions.map((s) => s.hostId);
    const ids = sessions.map((s) => s.sessionId);
    const records = await deleteMarkingLeaves(
      tx,
      `DELETE FROM "InterceptionRecord" r USING unnest($1::uuid[], $2::text[]) AS s(h, id)
       WHERE r."hostId" = s.h AND r."sessionId" = s.id AND NOT r."hostFailure"
       RETURNING r.id`,
      hosts,
      ids,
    );
    await tx.$executeRawUnsafe(
      `DELETE FROM "SessionChain" c USING unnest($1::uuid[], $2::text[]) AS s(h, id)
       WHERE c."hostId" = s.h AND c."sessionId" = s.id`,
      hosts,
      ids,
    );
    return { sessions: sessions.length, records };
  });
}

/**
 * Runs `deleteSql` (a DELETE … RETURNING id) and, in the same
 * statement, marks the deleted rows' leaves LogLeaf."prunedAt", so the log
 * verifier reports them as deleted by retention rather than missing (issue
 * 13). Returns the rows deleted.
 */
async function deleteMarkingLeaves(
  db: Pick<PrismaClient, '$queryRawUnsafe'>,
  deleteSql: string,
  ...params: unknown[]
): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ deleted: string }[]>(
    `WITH gone AS (${deleteSql}),
       marked AS (UPDATE "LogLeaf" SET "prunedAt" = now()
         WHERE kind = 'record' AND "refId" IN (SELECT id::text FROM gone) RETURNING 1)
     SELECT (SELECT count(*) FROM gone)::text AS deleted, (SELECT count(*) FROM marked) AS marked`,
    ...params,
  );
  return Number(rows[0]?.deleted ?? 0);
}

async function audit(
  prisma: PrismaClient,
  opts: { trigger: string; jobId?: string },
  outcome: RetentionOutcome,
): Promise<void> {
  await prisma.auditEvent.create({
    data: {
      actorKind: 'system',
      action: RETENTION_ACTION,
      targetType: 'job',
      targetId: opts.jobId ?? null,
      details: { trigger: opts.trigger, ...outcome } as object,
    },
  });
}
