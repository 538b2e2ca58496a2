import 'server-only';
import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { nudgeRelay, validateOutboxInput } from '../queue/outbox';
import { ticketFanoutDedupeKey } from '../jobs/definitions';

export interface DecisionCommit {
  ticketId: string;
  /** Decisions need the deadline ahead, expiry needs it passed. */
  deadline: 'ahead' | 'passed';
  status: 'approved' | 'rejected' | 'expired';
  outcome: 'approve' | 'reject' | 'unresolved';
  at: Date;
  resolution: unknown;
  verdict: unknown | null;
  contextIdentity: string | null;
  decidedByKind: string;
  userId: string | null;
  /** How the decider authenticated (receipts/claims.ts : DECIDER_AUTH). */
  deciderAuth?: string | null;
  /** The signed receipt (issue 13); absent or null: issued on first read. */
  receipt?: string | null;
  note: string | null;
  audit: { actorKind: string; action: string; details: Record<string, unknown> };
}

/**
 * Settles a pending ticket, exactly once, in one statement: the conditional
 * update (`status = 'pending'`, deadline on the right side) claims the row,
 * and the Decision and the audit event are inserted only from the claimed
 * row, with the `approvals.resolved` fan-out job (host callbacks, Slack) in
 * the outbox. A concurrent second statement waits on the row lock, re-reads it as
 * no longer pending, and inserts nothing (the unique Decision.ticketId is the
 * backstop). One round trip instead of an interactive transaction's five.
 * Timestamps are UTC `timestamp(3)` columns, hence the ISO strings.
 */
export async function commitDecision(prisma: PrismaClient, c: DecisionCommit): Promise<boolean> {
  const at = c.at.toISOString();
  const deadline =
    c.deadline === 'ahead'
      ? Prisma.sql`"expiresAt" > ${at}::timestamp(3)`
      : Prisma.sql`"expiresAt" <= ${at}::timestamp(3)`;
  const fanout = validateOutboxInput({
    kind: 'approvals.resolved',
    payload: { ticketId: c.ticketId },
    dedupeKey: ticketFanoutDedupeKey('approvals.resolved', c.ticketId),
    availableAt: c.at,
  });
  const rows = await prisma.$queryRaw<{ n: number; q: number }[]>`
    WITH claimed AS (
      UPDATE "ApprovalTicket"
         SET "status" = ${c.status}::"TicketStatus",
             "decidedAt" = ${at}::timestamp(3),
             "resolution" = ${JSON.stringify(c.resolution)}::jsonb
       WHERE "id" = ${c.ticketId}::uuid AND "status" = 'pending' AND ${deadline}
      RETURNING "id", "hostId"),
    decided AS (
      INSERT INTO "Decision"
        ("id", "ticketId", "outcome", "verdict", "contextIdentity", "decidedByKind", "userId", "note", "createdAt",
         "deciderAuth", "receipt")
      SELECT ${randomUUID()}::uuid, "id", ${c.outcome}::"DecisionOutcome",
             ${c.verdict === null ? null : JSON.stringify(c.verdict)}::jsonb, ${c.contextIdentity},
             ${c.decidedByKind}, ${c.userId}::uuid, ${c.note}, ${at}::timestamp(3),
             ${c.deciderAuth ?? null}, ${c.receipt ?? null}
        FROM claimed
      RETURNING "ticketId"),
    audited AS (
      INSERT INTO "AuditEvent" ("actorId", "actorKind", "action", "targetType", "targetId", "details", "createdAt")
      SELECT ${c.userId}::uuid, ${c.audit.actorKind}, ${c.audit.action}, 'approval_ticket',
             "ticketId"::text, ${JSON.stringify(c.audit.details)}::jsonb, ${at}::timestamp(3)
        FROM decided
      RETURNING "id"),
    queued AS (
      INSERT INTO "OutboxEvent" ("kind", "payload", "dedupeKey", "createdAt", "availableAt")
      -- The host rides along for the relay's per-host priority (queue/relay.ts).
      SELECT ${fanout.kind},
             ${JSON.stringify(fanout.payload)}::jsonb || jsonb_build_object('hostId', claimed."hostId"::text),
             ${fanout.dedupeKey}, ${at}::timestamp(3), ${at}::timestamp(3)
        FROM decided JOIN claimed ON claimed."id" = decided."ticketId"
      ON CONFLICT ("dedupeKey") DO NOTHING
      RETURNING "id")
    SELECT (SELECT count(*)::int FROM audited) AS n, (SELECT count(*)::int FROM queued) AS q`;
  const won = Number(rows[0]?.n ?? 0) === 1;
  if (won) nudgeRelay();
  return won;
}
