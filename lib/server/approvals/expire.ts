import 'server-only';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { db } from '../db';
import { ticketFanoutDedupeKey } from '../jobs/definitions';
import { nudgeRelay, validateOutboxInput } from '../queue/outbox';
import { issueExpiryReceipts } from '../receipts';
import { publishTicketEvent } from './events';

/** Most tickets one bulk expiry claims; the scheduler repeats until none is due. */
export const EXPIRY_BATCH_SIZE = 500;

export interface ExpiredTicket {
  id: string;
  hostId: string;
}

type ExpiredRow = ExpiredTicket & {
  contextIdentity: string | null;
  requestId: string | null;
  interceptionPoint: string;
};

/**
 * Resolves pending tickets whose deadline has passed as `unresolved`, echoing
 * their identity (§9); the host enforces that as
 * `host_error:approval_unresolved`. One statement claims up to `limit` due
 * tickets and writes, for each, what `commitDecision` writes for one: the
 * status, `decidedAt` and resolution, the Decision, the audit event and the
 * `approvals.resolved` fan-out row. Then one `expired` event per ticket.
 *
 * Exactly once: the claim takes row locks (`FOR UPDATE`) on tickets still
 * pending and due; a racing decision (`commitDecision` with the deadline
 * ahead) either holds the lock first, and the claim skips the row and sees
 * it decided next time, or waits for this statement and then finds the
 * ticket no longer pending. `SKIP LOCKED` lets several schedulers run at
 * once without waiting on each other or claiming a row twice; the unique
 * Decision.ticketId is the backstop.
 *
 * `ticketId` targets one ticket (the delayed job, a waiter at the deadline);
 * it waits for a lock instead of skipping it, so the caller reads the
 * settled ticket afterwards, as with `commitDecision`.
 */
export async function expireTickets(
  opts: { now?: Date; limit?: number; ticketId?: string; prisma?: PrismaClient } = {},
): Promise<ExpiredTicket[]> {
  const prisma = opts.prisma ?? (await db());
  const atDate = opts.now ?? new Date();
  const at = atDate.toISOString();
  const limit = Math.max(1, Math.min(opts.limit ?? EXPIRY_BATCH_SIZE, 10_000));
  const { prefix, suffix } = fanoutKeyTemplate();
  const target =
    opts.ticketId === undefined ? Prisma.empty : Prisma.sql`AND "id" = ${opts.ticketId}::uuid`;
  const lock =
    opts.ticketId === undefined ? Prisma.sql`FOR UPDATE SKIP LOCKED` : Prisma.sql`FOR UPDATE`;
  // The resolution is buildResolution(identity, 'unresolved') built in SQL:
  // `{outcome, context_identity}`, which always passes §9 (the echo is the
  // ticket's own identity, no verdict). The audit details are expireTicket's
  // since the start: `{outcome, contextIdentity}`.
  const rows = await prisma.$queryRaw<ExpiredRow[]>`
    WITH due AS (
      SELECT "id" FROM "ApprovalTicket"
       WHERE "status" = 'pending' AND "expiresAt" <= ${at}::timestamp(3) ${target}
       ORDER BY "expiresAt"
       LIMIT ${limit}
       ${lock}),
    claimed AS (
      UPDATE "ApprovalTicket" t
         SET "status" = 'expired'::"TicketStatus",
             "decidedAt" = ${at}::timestamp(3),
             "resolution" = jsonb_build_object('outcome', 'unresolved', 'context_identity', t."contextIdentity")
        FROM due
       WHERE t."id" = due."id" AND t."status" = 'pending'
      RETURNING t."id", t."hostId", t."contextIdentity", t."requestId", t."interceptionPoint"),
    decided AS (
      INSERT INTO "Decision"
        ("id", "ticketId", "outcome", "verdict", "contextIdentity", "decidedByKind", "userId", "note", "createdAt",
         "deciderAuth")
      SELECT gen_random_uuid(), "id", 'unresolved'::"DecisionOutcome", NULL::jsonb, "contextIdentity",
             'system', NULL::uuid, NULL::text, ${at}::timestamp(3), 'expiry'
        FROM claimed
      RETURNING "ticketId", "contextIdentity"),
    audited AS (
      INSERT INTO "AuditEvent" ("actorId", "actorKind", "action", "targetType", "targetId", "details", "createdAt")
      SELECT NULL::uuid, 'system', 'approval.expired', 'approval_ticket', "ticketId"::text,
             jsonb_build_object('outcome', 'unresolved', 'contextIdentity', "contextIdentity"),
             ${at}::timestamp(3)
        FROM decided
      RETURNING "id"),
    queued AS (
      INSERT INTO "OutboxEvent" ("kind", "payload", "dedupeKey", "createdAt", "availableAt")
      -- The host rides along for the relay's per-host priority (queue/relay.ts).
      SELECT 'approvals.resolved',
             jsonb_build_object('ticketId', d."ticketId"::text, 'hostId', c."hostId"::text),
             ${prefix} || d."ticketId"::text || ${suffix}, ${at}::timestamp(3), ${at}::timestamp(3)
        FROM decided d JOIN claimed c ON c."id" = d."ticketId"
      ON CONFLICT ("dedupeKey") DO NOTHING
      RETURNING "id")
    -- Data-modifying CTEs run to completion whether or not they are read.
    SELECT "id"::text AS "id", "hostId"::text AS "hostId", "contextIdentity", "requestId",
           "interceptionPoint" FROM claimed`;
  if (rows.length === 0) return [];
  // Issue 13: signed after the statement, stored in one more; what this
  // misses is issued on first read (receipts/issue.ts).
  await issueExpiryReceipts(prisma, rows, atDate);
  nudgeRelay();
  for (const t of rows) publishTicketEvent({ type: 'expired', ticketId: t.id, hostId: t.hostId });
  return rows.map((t) => ({ id: t.id, hostId: t.hostId }));
}

/** Expires one ticket if it is pending and due at `now`; true when this call did. */
export async function expireTicket(ticketId: string, now = new Date()): Promise<boolean> {
  return (await expireTickets({ now, ticketId, limit: 1 })).length === 1;
}

/**
 * One bulk pass over the due tickets, oldest deadline first; returns how many
 * this call expired. Needs only the database, so tickets expire while Redis
 * (and with it the delayed expiry job) is down.
 */
export async function expireDueTickets(limit = EXPIRY_BATCH_SIZE): Promise<number> {
  return (await expireTickets({ limit })).length;
}

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
let template: { prefix: string; suffix: string } | undefined;

/**
 * The fan-out dedupe key as `prefix || id || suffix`, taken from the job
 * definition (one spelling, jobs/definitions.ts) and checked once by the
 * outbox's own validation, so SQL can build it per claimed row.
 */
function fanoutKeyTemplate(): { prefix: string; suffix: string } {
  if (template) return template;
  const key = ticketFanoutDedupeKey('approvals.resolved', SAMPLE_ID);
  validateOutboxInput({
    kind: 'approvals.resolved',
    payload: { ticketId: SAMPLE_ID },
    dedupeKey: key,
  });
  const at = key.indexOf(SAMPLE_ID);
  if (at < 0 || key.indexOf(SAMPLE_ID, at + 1) >= 0) {
    throw new Error('the approvals.resolved dedupe key must contain the ticket id exactly once');
  }
  template = { prefix: key.slice(0, at), suffix: key.slice(at + SAMPLE_ID.length) };
  return template;
}
