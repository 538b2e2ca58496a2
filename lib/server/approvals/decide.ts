import 'server-only';
import type { ApprovalResolution } from '@checkpoint/agent-hooks';
import { hasAnyRole } from '../auth/roles';
import { db } from '../db';
import { commitDecision } from './commit-decision';
import { type DecidedBy, DecisionError } from './errors';
import { publishTicketEvent } from './events';
import { expireTicket } from './expire';
import { ensureApprovalsRuntime } from './runtime';
import { buildResolution, type DecisionEdit, decisionVerdict } from './resolution';
import { withResolver } from './resolver-phase';
import { storedContext } from './stored-context';
import { findNulCharacter, nulCharacterMessage } from '../http/nul-character';
import { isUuid } from '../http/uuid';
import { passwordNotYetChosen, type SignInMethod } from '../auth/user-sessions';
import { deciderAuthOf, receiptEvidence, signReceipt } from '../receipts';
import { moduleLogger } from '../logger';

export { type DecidedBy, DecisionError, type DecisionErrorCode } from './errors';

const log = moduleLogger('approvals');

export type DecisionActor =
  /** A web reviewer; `auth` is how their session signed in (the receipt's decider.auth). */
  | { kind: 'human'; userId: string; auth?: SignInMethod }
  | { kind: 'slack'; userId: string }
  /** An automated resolver (webhook); authenticated by its caller. */
  | { kind: 'resolver' };

export interface DecideInput {
  ticketId: string;
  actor: DecisionActor;
  outcome: 'approve' | 'reject';
  /** The identity the decider was shown, echoed from the form or button. */
  contextIdentity: string | null;
  /** Approve with edit: a transform of the target (§5.2). */
  edit?: DecisionEdit;
  /** Required for reject: the reviewer's words, sent to the host as the deny's message. */
  reason?: string;
  /** Reject only: the deny's reason code; `approval_rejected` when absent. */
  reasonCode?: string | null;
}

export interface DecidedTicket {
  id: string;
  hostId: string;
  status: 'approved' | 'rejected';
  decidedAt: Date;
  /** The released ApprovalResolution (§9), echoing the request's identity. */
  resolution: ApprovalResolution;
}

/**
 * Decides a pending ticket, once. The echoed identity must be the ticket's
 * (a reviewer decides what they saw); the resolution is built and validated
 * as a host would validate it before anything is written; the conditional
 * update on `status = pending` (commit-decision.ts, with the unique
 * Decision.ticketId behind it) lets exactly one of racing decisions commit. Each decision leaves an audit
 * event without payload. Throws DecisionError; on any throw nothing changed.
 */
export async function decideTicket(input: DecideInput): Promise<DecidedTicket> {
  ensureApprovalsRuntime();
  const prisma = await db();
  if (!isUuid(input.ticketId)) {
    await authorize(input.actor);
    throw notFound();
  }
  const [decider, ticket] = await Promise.all([
    authorize(input.actor),
    prisma.approvalTicket.findUnique({
      where: { id: input.ticketId },
      select: {
        id: true,
        hostId: true,
        status: true,
        expiresAt: true,
        contextIdentity: true,
        contextJson: true,
        redactedPaths: true,
        resolverUntil: true,
        interceptionPoint: true,
        requestId: true,
      },
    }),
  ]);
  if (!ticket) throw notFound();
  if (ticket.status !== 'pending') throw await settledError(ticket.id);
  if (ticket.expiresAt.getTime() <= Date.now()) {
    await expireTicket(ticket.id);
    throw await settledError(ticket.id);
  }
  // Issue 6: people wait while the resolver holds the ticket. resolverUntil
  // only ever moves earlier (hand-over), so this read cannot let one through early.
  if (input.actor.kind !== 'resolver' && withResolver(ticket.resolverUntil)) {
    throw new DecisionError(
      'with_resolver',
      `An automated resolver is deciding this ticket; it reaches reviewers by ${ticket.resolverUntil?.toISOString()} at the latest.`,
    );
  }
  // §9 echo: byte for byte, null echoes null.
  if (input.contextIdentity !== ticket.contextIdentity) {
    throw new DecisionError(
      'identity_stale',
      'The ticket changed since it was displayed (context identity differs); nothing was decided.',
    );
  }
  const verdict = decisionVerdict(input.outcome, {
    edit: input.edit,
    reason: input.reason,
    reasonCode: input.reasonCode,
    // The exact stored text (stored-context.ts): the edit applies to what was shown.
    context: await storedContext(ticket.id, ticket.contextJson),
    redactedPaths: ticket.redactedPaths,
  });
  const nulAt = findNulCharacter(verdict, '$.verdict');
  if (nulAt) throw new DecisionError('nul_character', nulCharacterMessage(nulAt));
  // Checked before anything is signed: a resolution §9 refuses gets no receipt.
  buildResolution(ticket.contextIdentity, input.outcome, verdict);
  const status = input.outcome === 'approve' ? 'approved' : 'rejected';
  const now = new Date();
  const userId = decider?.id ?? null;
  const deciderAuth = deciderAuthOf(
    input.actor.kind,
    input.actor.kind === 'human' ? input.actor.auth : undefined,
  );
  // Issue 13: the receipt is signed before the commit, since the released
  // verdict's evidence (§5.3) holds its digest; its claims are all known now
  // (decided_at is the commit's `at`) and never include the evidence. A lost
  // race discards it. A receipt that cannot be signed does not block the
  // decision: it is issued on first read (receipts/issue.ts), without evidence.
  const receipt = await signReceipt({
    ticketId: ticket.id,
    hostId: ticket.hostId,
    requestId: ticket.requestId,
    interceptionPoint: ticket.interceptionPoint,
    contextIdentity: input.contextIdentity,
    outcome: input.outcome,
    verdict,
    decidedByKind: input.actor.kind,
    userId,
    email: decider?.email ?? null,
    deciderAuth,
    decidedAt: now,
  }).catch((err: unknown) => {
    log.error({ err, ticketId: ticket.id }, 'receipt not signed; it will be issued on read');
    return null;
  });
  const evidence = receipt ? receiptEvidence(ticket.id, receipt) : null;
  const released = evidence ? { ...verdict, evidence } : verdict;
  const resolution = buildResolution(ticket.contextIdentity, input.outcome, released);

  const won = await commitDecision(prisma, {
    ticketId: ticket.id,
    deadline: 'ahead',
    status,
    outcome: input.outcome,
    at: now,
    resolution,
    verdict: released,
    contextIdentity: input.contextIdentity,
    decidedByKind: input.actor.kind,
    userId,
    deciderAuth,
    receipt,
    note: input.outcome === 'reject' ? (input.reason?.trim() ?? null) : null,
    audit: {
      actorKind: input.actor.kind === 'human' ? 'user' : input.actor.kind,
      action: 'approval.decided',
      // Who, which identity, which outcome: never the context or the edited value.
      details: {
        outcome: input.outcome,
        edited: Boolean(input.edit),
        contextIdentity: input.contextIdentity,
      },
    },
  });
  if (!won) throw await settledError(ticket.id);
  publishTicketEvent({ type: 'decided', ticketId: ticket.id, hostId: ticket.hostId });
  return { id: ticket.id, hostId: ticket.hostId, status, decidedAt: now, resolution };
}

/**
 * Humans (and Slack users) must be active reviewers or admins; host keys
 * never get here. A Slack user must also have finished signing up (chosen
 * their own password): the web holds a password session to that before any
 * decision, and Slack must not be the way around it.
 */
async function authorize(actor: DecisionActor): Promise<{ id: string; email: string } | null> {
  if (actor.kind === 'resolver') return null;
  if (actor.kind !== 'human' && actor.kind !== 'slack') {
    throw new DecisionError('forbidden', 'Unknown kind of decider.');
  }
  const prisma = await db();
  const user = isUuid(actor.userId)
    ? await prisma.user.findUnique({
        where: { id: actor.userId },
        select: {
          email: true,
          roles: true,
          disabled: true,
          mustChangePassword: true,
          oidcSubject: true,
        },
      })
    : null;
  if (!user || user.disabled || !hasAnyRole(user.roles, ['reviewer'])) {
    throw new DecisionError('forbidden', 'Only reviewers and admins decide approvals.');
  }
  if (actor.kind === 'slack' && passwordNotYetChosen(user)) {
    throw new DecisionError(
      'forbidden',
      'Choose your own password (sign in once) before deciding from Slack.',
    );
  }
  return { id: actor.userId, email: user.email };
}

function notFound(): DecisionError {
  return new DecisionError('not_found', 'No such approval ticket.');
}

/** The error for a ticket that is no longer pending: who decided it and when, or expired. */
async function settledError(ticketId: string): Promise<DecisionError> {
  const prisma = await db();
  const d = await prisma.decision.findUnique({
    where: { ticketId },
    select: {
      outcome: true,
      decidedByKind: true,
      userId: true,
      createdAt: true,
      user: { select: { email: true } },
    },
  });
  if (!d || d.outcome === 'unresolved') {
    const e = new DecisionError('expired', 'The ticket expired before a decision.');
    if (d) e.decidedAt = d.createdAt;
    return e;
  }
  const decidedBy: DecidedBy = { kind: d.decidedByKind };
  if (d.userId) decidedBy.userId = d.userId;
  if (d.user?.email) decidedBy.email = d.user.email;
  const who = decidedBy.email ?? decidedBy.kind;
  const e = new DecisionError(
    'already_decided',
    `Already decided by ${who} at ${d.createdAt.toISOString()}.`,
  );
  e.decidedBy = decidedBy;
  e.decidedAt = d.createdAt;
  return e;
}
