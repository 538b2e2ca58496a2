import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';
import { auditDb } from '@/lib/server/db/audit-db';
import type { ChainVerification } from '@/lib/server/records/verify';
import { type AuditActor, assertAuditor } from './access';
import { checkSessionIntegrity, SESSION_PAGE_SIZE, type SessionIntegrity } from './integrity';
import { type AuditRow, ROW_COLUMNS } from './rows';
import { type RecordView, readRecordView } from './record-view';
import { utcTimestamp } from './where';

/**
 * Entries per timeline page: small enough that the first page of any
 * session stays a light page (issue 16 item 3: ≤ 200 KB of HTML for a
 * 100,000-record session); a caller may ask for up to SESSION_PAGE_SIZE.
 */
export const TIMELINE_PAGE_SIZE = 50;

export type TicketLink = {
  id: string;
  status: string;
  decidedAt: string | null;
  /** human | resolver | slack | system */
  decidedByKind: string | null;
  reviewer: { name: string | null; email: string } | null;
};

type TimelineRow = AuditRow & { prevHash: string | null; ticketId: string | null };

export type TimelineEntry = TimelineRow &
  RecordView & {
    /** Sequences missing just before this entry (`from`..`to` inclusive). */
    gapBefore: { from: number; to: number } | null;
    ticket: TicketLink | null;
  };

export type ChainCheck = ChainVerification | { error: string };

/** The session verified against the log, or why it could not be. */
export type IntegrityCheck = SessionIntegrity | { error: string };

export type SessionHost = { id: string; name: string; records: number };

/** A record the host wrote about its own failure while the session ran (it names no session). */
export type NearbyHostFailure = {
  id: string;
  receivedAt: string;
  interceptionPoint: string;
  reason: string | null;
};

const MAX_FAILURES = 20;

export type SessionTimeline =
  | { kind: 'not_found' }
  /** The same session id exists under several hosts (ids are per host): pick one. */
  | { kind: 'choose_host'; sessionId: string; hosts: SessionHost[] }
  | {
      kind: 'timeline';
      sessionId: string;
      host: SessionHost;
      entries: TimelineEntry[];
      /** The page starts after this sequence (-1: from the start). */
      after: number;
      /** Pass as `after` for the next page; null on the last page. */
      nextAfter: number | null;
      /** The session's chain result (part of `integrity`). */
      chain: ChainCheck;
      integrity: IntegrityCheck;
      hostFailures: NearbyHostFailure[];
    };

/**
 * The hosts holding the session, found by an index probe per host (no
 * count: a 100,000-record session would be counted on every page view).
 * Their record counts only when there is a choice to make; a single host's
 * comes from the structure check, which reads the session anyway.
 */
async function hostsOfSession(sessionId: string, hostId?: string): Promise<SessionHost[]> {
  const prisma = await auditDb();
  const byHost = hostId ? Prisma.sql`AND h.id = ${hostId}::uuid` : Prisma.empty;
  const hosts = await prisma.$queryRaw<{ id: string; name: string }[]>`
    SELECT h.id::text AS id, h.name FROM "Host" h
    WHERE EXISTS (
      SELECT 1 FROM "InterceptionRecord" r
      WHERE r."hostId" = h.id AND r."sessionId" = ${sessionId} AND NOT r."hostFailure"
    ) ${byHost}
    ORDER BY h.name`;
  if (hosts.length < 2) return hosts.map((h) => ({ ...h, records: 0 }));
  return Promise.all(
    hosts.map(async (h) => ({ ...h, records: await countSession(h.id, sessionId) })),
  );
}

async function countSession(hostId: string, sessionId: string): Promise<number> {
  const prisma = await auditDb();
  const [row] = await prisma.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM "InterceptionRecord"
    WHERE "hostId" = ${hostId}::uuid AND "sessionId" = ${sessionId} AND NOT "hostFailure"`;
  return row?.n ?? 0;
}

/** Tickets by their id or by (session, sequence): records and tickets link either way. */
async function ticketsFor(hostId: string, sessionId: string, entries: TimelineRow[]) {
  const sequences = entries.filter((e) => e.resolvedBy !== null).map((e) => e.sequence);
  const ids = entries.flatMap((e) => (e.ticketId ? [e.ticketId] : []));
  if (sequences.length === 0 && ids.length === 0) return [];
  const prisma = await auditDb();
  return prisma.approvalTicket.findMany({
    where: {
      hostId,
      OR: [{ id: { in: ids } }, { sessionId, sequence: { in: sequences } }],
    },
    select: {
      id: true,
      sessionId: true,
      sequence: true,
      status: true,
      decidedAt: true,
      decision: {
        select: { decidedByKind: true, user: { select: { name: true, email: true } } },
      },
    },
  });
}

/**
 * The host's own failure records received while the session ran (from a
 * minute before its first record to a minute after its last): they carry
 * no session id, so this is the only place they meet its timeline.
 */
async function hostFailuresDuring(hostId: string, sessionId: string): Promise<NearbyHostFailure[]> {
  const prisma = await auditDb();
  return prisma.$queryRaw<NearbyHostFailure[]>`
    WITH span AS (
      SELECT min("receivedAt") AS first, max("receivedAt") AS last FROM "InterceptionRecord"
      WHERE "hostId" = ${hostId}::uuid AND "sessionId" = ${sessionId} AND "hostFailure" = false
    )
    SELECT r.id::text AS id,
      to_char(r."receivedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "receivedAt",
      r."interceptionPoint", r.reason
    FROM "InterceptionRecord" r, span
    WHERE r."hostId" = ${hostId}::uuid AND r."hostFailure" = true
      AND r."receivedAt" BETWEEN span.first - interval '1 minute' AND span.last + interval '1 minute'
    ORDER BY r."receivedAt", r.id LIMIT ${MAX_FAILURES}`;
}

async function checkIntegrity(
  hostId: string,
  sessionId: string,
  page: { after: number; limit: number },
): Promise<IntegrityCheck> {
  try {
    return await checkSessionIntegrity(hostId, sessionId, page);
  } catch {
    // The timeline still shows; the integrity result says it could not be checked.
    return { error: 'The session could not be verified against the log right now.' };
  }
}

/**
 * The first sequence of the session received at or after `at` (jump to a
 * time), or null when nothing was. An index-only scan of the session's
 * structure index, at any session size.
 */
async function firstSequenceAt(
  hostId: string,
  sessionId: string,
  at: Date,
): Promise<number | null> {
  const prisma = await auditDb();
  const [row] = await prisma.$queryRaw<{ sequence: number | null }[]>`
    SELECT min(sequence) AS sequence FROM "InterceptionRecord"
    WHERE "hostId" = ${hostId}::uuid AND "sessionId" = ${sessionId} AND NOT "hostFailure"
      AND "receivedAt" >= ${utcTimestamp(at)}`;
  return row?.sequence ?? null;
}

/** Where the page starts: after a sequence, at a sequence (jump), or at a time (jump). */
async function startAfter(
  hostId: string,
  input: { sessionId: string; after?: number; fromSequence?: number; fromTime?: Date },
): Promise<number> {
  if (input.after !== undefined) return input.after;
  if (input.fromSequence !== undefined) return input.fromSequence - 1;
  if (input.fromTime !== undefined) {
    const sequence = await firstSequenceAt(hostId, input.sessionId, input.fromTime);
    // Nothing received that late: an empty page past the end says so.
    return sequence === null ? 2 ** 31 - 1 : sequence - 1;
  }
  return -1;
}

/**
 * A session as a timeline ordered by sequence (§10.3: records are totally
 * ordered within a session), one page after `after`, with gaps flagged
 * inline, approval tickets linked, and the page's records verified against
 * the transparency log in full with the session's chain structure checked
 * whole (integrity.ts: the cost follows the page, not the session).
 */
export async function getSessionTimeline(
  actor: AuditActor,
  input: {
    sessionId: string;
    hostId?: string;
    after?: number;
    /** Jump: the page starts at this sequence (or the next one stored). */
    fromSequence?: number;
    /** Jump: the page starts at the first record received at or after this moment. */
    fromTime?: Date;
    limit?: number;
  },
): Promise<SessionTimeline> {
  assertAuditor(actor);
  const hosts = await hostsOfSession(input.sessionId, input.hostId);
  if (hosts.length === 0) return { kind: 'not_found' };
  if (hosts.length > 1) return { kind: 'choose_host', sessionId: input.sessionId, hosts };
  const found = hosts[0] as SessionHost;
  const limit = Math.min(Math.max(input.limit ?? TIMELINE_PAGE_SIZE, 1), SESSION_PAGE_SIZE);
  const after = await startAfter(found.id, input);
  const firstPage = after < 0;
  const prisma = await auditDb();
  const pageAndTickets = async () => {
    const rows = await prisma.$queryRaw<(TimelineRow & { record: unknown })[]>`
      SELECT ${ROW_COLUMNS}, r.record, r."prevHash", r."ticketId"::text AS "ticketId"
      FROM "InterceptionRecord" r JOIN "Host" h ON h.id = r."hostId"
      WHERE r."hostId" = ${found.id}::uuid AND r."sessionId" = ${input.sessionId}
        AND r."hostFailure" = false AND r.sequence > ${after}
      ORDER BY r.sequence ASC LIMIT ${limit + 1}`;
    const page = rows.slice(0, limit);
    return { rows, page, tickets: await ticketsFor(found.id, input.sessionId, page) };
  };
  // The log check reads the session apart from the page: both at once.
  const [{ rows, page, tickets }, integrity, hostFailures] = await Promise.all([
    pageAndTickets(),
    checkIntegrity(found.id, input.sessionId, { after, limit }),
    firstPage ? hostFailuresDuring(found.id, input.sessionId) : [],
  ]);
  const records =
    'error' in integrity
      ? await countSession(found.id, input.sessionId)
      : integrity.scope.sessionRecords;
  const host: SessionHost = { ...found, records };
  const ticketById = new Map(tickets.map((t) => [t.id, t]));
  const ticketBySeq = new Map(
    tickets.filter((t) => t.sessionId === input.sessionId).map((t) => [t.sequence, t]),
  );
  let previous = after;
  const entries = page.map((row): TimelineEntry => {
    const gapBefore =
      row.sequence > previous + 1 ? { from: previous + 1, to: row.sequence - 1 } : null;
    previous = row.sequence;
    const t =
      (row.ticketId ? ticketById.get(row.ticketId) : undefined) ??
      (row.resolvedBy !== null ? ticketBySeq.get(row.sequence) : undefined);
    const { record, ...rest } = row;
    return {
      ...rest,
      ...readRecordView(record),
      gapBefore,
      ticket: t
        ? {
            id: t.id,
            status: t.status,
            decidedAt: t.decidedAt?.toISOString() ?? null,
            decidedByKind: t.decision?.decidedByKind ?? null,
            reviewer: t.decision?.user ?? null,
          }
        : null,
    };
  });
  const last = page.at(-1);
  return {
    kind: 'timeline',
    sessionId: input.sessionId,
    host,
    entries,
    after,
    nextAfter: rows.length > limit && last ? last.sequence : null,
    chain: 'error' in integrity ? integrity : integrity.chain,
    integrity,
    hostFailures,
  };
}
