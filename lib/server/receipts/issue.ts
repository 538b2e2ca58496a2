import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { db } from '../db';
import { moduleLogger } from '../logger';
import { signJws } from '../signing/jws';
import { RECEIPT_TYP, type ReceiptSubject, receiptClaims } from './claims';
import { deploymentOrigin } from './evidence';

/**
 * Issuing receipts. No decision is left without one: decideTicket signs
 * before its commit (the resolution's evidence needs the receipt's digest)
 * and stores the receipt in the same statement; bulk expiry signs right
 * after its statement; and whatever was missed (a signing failure, a crash
 * between expiry's statement and its update, decisions older than receipts)
 * is issued on first read by `receiptForTicket` and stored with a
 * conditional update, so two readers racing store one receipt.
 */

const log = moduleLogger('receipts');

/** Signs the receipt for `s` (the claims minus nothing: the evidence is never a claim). */
export async function signReceipt(s: ReceiptSubject, now = new Date()): Promise<string> {
  return signJws(receiptClaims(s, deploymentOrigin(), now), { typ: RECEIPT_TYP });
}

const SUBJECT_SELECT = {
  id: true,
  outcome: true,
  verdict: true,
  contextIdentity: true,
  decidedByKind: true,
  userId: true,
  deciderAuth: true,
  receipt: true,
  createdAt: true,
  user: { select: { email: true } },
  ticket: { select: { id: true, hostId: true, requestId: true, interceptionPoint: true } },
} as const;

/**
 * The receipt of a decided ticket, issued now and stored if it was missing.
 * Null when the ticket is undecided (or another host's, with `hostId`).
 * Throws when a missing receipt cannot be signed (e.g. the key does not
 * decrypt): callers that answer without it say so rather than fail.
 */
export async function receiptForTicket(
  ticketId: string,
  opts: { hostId?: string; prisma?: PrismaClient } = {},
): Promise<string | null> {
  const prisma = opts.prisma ?? (await db());
  const d = await prisma.decision.findUnique({ where: { ticketId }, select: SUBJECT_SELECT });
  if (!d || (opts.hostId !== undefined && d.ticket.hostId !== opts.hostId)) return null;
  if (d.receipt) return d.receipt;
  const jws = await signReceipt({
    ticketId: d.ticket.id,
    hostId: d.ticket.hostId,
    requestId: d.ticket.requestId,
    interceptionPoint: d.ticket.interceptionPoint,
    contextIdentity: d.contextIdentity,
    outcome: d.outcome,
    verdict: d.verdict,
    decidedByKind: d.decidedByKind,
    userId: d.userId,
    email: d.user?.email ?? null,
    deciderAuth: d.deciderAuth,
    decidedAt: d.createdAt,
  });
  const stored = await prisma.decision.updateMany({
    where: { id: d.id, receipt: null },
    data: { receipt: jws },
  });
  if (stored.count === 1) {
    log.info({ ticketId }, 'receipt issued on read');
    return jws;
  }
  // Another reader stored one first: that one is the receipt.
  const row = await prisma.decision.findUnique({ where: { id: d.id }, select: { receipt: true } });
  return row?.receipt ?? jws;
}

/** `receiptForTicket` for answers that go out anyway: null (logged) when it cannot be issued. */
export async function receiptOrNull(
  ticketId: string,
  opts: { hostId?: string; prisma?: PrismaClient } = {},
): Promise<string | null> {
  try {
    return await receiptForTicket(ticketId, opts);
  } catch (err) {
    log.error({ err, ticketId }, 'receipt could not be issued; answering without it');
    return null;
  }
}

export interface ExpiredSubject {
  id: string;
  hostId: string;
  requestId: string | null;
  interceptionPoint: string;
  contextIdentity: string | null;
}

/**
 * Receipts for tickets one bulk expiry just settled at `at`: signed here,
 * stored with one statement. A failure is logged, not thrown (the expiry has
 * committed; the receipts are issued on first read instead).
 */
export async function issueExpiryReceipts(
  prisma: PrismaClient,
  tickets: ExpiredSubject[],
  at: Date,
): Promise<number> {
  if (tickets.length === 0) return 0;
  try {
    const now = new Date();
    const jws = await Promise.all(
      tickets.map((t) =>
        signReceipt(
          {
            ticketId: t.id,
            hostId: t.hostId,
            requestId: t.requestId,
            interceptionPoint: t.interceptionPoint,
            contextIdentity: t.contextIdentity,
            outcome: 'unresolved',
            verdict: null,
            decidedByKind: 'system',
            userId: null,
            email: null,
            deciderAuth: 'expiry',
            decidedAt: at,
          },
          now,
        ),
      ),
    );
    return await prisma.$executeRaw`
      UPDATE "Decision" d
         SET "receipt" = r.receipt
        FROM unnest(${tickets.map((t) => t.id)}::uuid[], ${jws}::text[]) AS r(ticket_id, receipt)
       WHERE d."ticketId" = r.ticket_id AND d."receipt" IS NULL`;
  } catch (err) {
    log.error({ err, count: tickets.length }, 'expiry receipts not issued; they will be on read');
    return 0;
  }
}
