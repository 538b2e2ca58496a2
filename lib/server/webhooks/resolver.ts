import 'server-only';
import type { Prisma } from '@/lib/generated/prisma/client';
import { type ApprovalRequest, validateResolution } from '@checkpoint/agent-hooks';
import { DecisionError, decideTicket } from '../approvals/decide';
import { handOverTicket, withResolver } from '../approvals/resolver-phase';
import { storedContext } from '../approvals/stored-context';
import { db } from '../db';
import { findNulCharacter } from '../http/nul-character';
import { moduleLogger } from '../logger';
import { recordAttempt } from './attempts';
import type { HostSlots } from './host-slots';
import { RESOLVE_REQUEST_EVENT } from './payload';
import { type AttemptResult, attemptErrorText, postSigned } from './post-signed';

const log = moduleLogger('webhooks-resolver');

/** How a consultation ended; anything but approved/rejected leaves the ticket to humans. */
export type ResolverOutcome =
  | 'approved'
  | 'rejected'
  | 'unresolved'
  | 'failed'
  | 'invalid'
  | 'skipped';

export interface ConsultResult {
  outcome: ResolverOutcome;
  /** Why it was not decided: http_500, timeout, host_error:approval_identity_mismatch, … */
  reason?: string;
}

/**
 * Consults the host's resolver webhook for a new ticket, once: POSTs the
 * stored (already redacted) ApprovalRequest signed like a callback, and
 * validates the answer exactly as a host would (§9: echo, shape, verdict,
 * consistency). approve/reject decide the ticket as `resolver`; anything
 * else (unresolved, an error, a timeout, an invalid answer) is recorded and
 * hands the ticket over to the reviewers at once. Consulted only while the
 * ticket is with the resolver (`resolverUntil` ahead), within what is left
 * of that phase. Nothing here can produce a permit by
 * default. With `slots` (the worker's), the request waits for one of the
 * host's resolver slots: HostBusyError when all are taken (the job comes
 * back later; nothing is recorded and the ticket stays with the resolver).
 */
export async function consultResolver(ticketId: string, slots?: HostSlots): Promise<ConsultResult> {
  const result = await consult(ticketId, slots);
  // Issue 6: anything but a decision hands the ticket to the reviewers now
  // (a no-op unless it is still pending with the resolver).
  if (result.outcome !== 'approved' && result.outcome !== 'rejected') {
    await handOverTicket(await db(), ticketId);
  }
  return result;
}

async function consult(ticketId: string, slots?: HostSlots): Promise<ConsultResult> {
  const prisma = await db();
  const ticket = await prisma.approvalTicket.findUnique({
    where: { id: ticketId },
    select: {
      id: true,
      hostId: true,
      status: true,
      contextIdentity: true,
      interceptionPoint: true,
      verdict: true,
      contextJson: true,
      resolverUntil: true,
    },
  });
  if (ticket?.status !== 'pending') return { outcome: 'skipped' };
  // Only while it holds the ticket: after the phase (or without one) the
  // reviewers have it, and the resolver never races them.
  if (!ticket.resolverUntil || !withResolver(ticket.resolverUntil)) return { outcome: 'skipped' };
  const phaseLeftMs = ticket.resolverUntil.getTime() - Date.now();
  const hook = await prisma.webhook.findUnique({
    where: { hostId_kind: { hostId: ticket.hostId, kind: 'resolver' } },
    select: { id: true, url: true, enabled: true, timeoutMs: true },
  });
  if (!hook?.enabled) return { outcome: 'skipped' };

  const request = {
    context_identity: ticket.contextIdentity,
    interception_point: ticket.interceptionPoint,
    verdict: ticket.verdict,
    // The exact stored text (approvals/stored-context.ts): every member the identity covers.
    context: await storedContext(ticket.id, ticket.contextJson),
  } as unknown as ApprovalRequest;
  const messageId = `msg_${hook.id.replaceAll('-', '')}_rs_${ticket.id.replaceAll('-', '')}`;
  // The delivery row is the "consulted once" guard: a rerun of the job finds it.
  const created = await prisma.webhookDelivery.createMany({
    data: [
      {
        webhookId: hook.id,
        ticketId: ticket.id,
        messageId,
        eventType: RESOLVE_REQUEST_EVENT,
        payload: { ticket_id: ticket.id, context_identity: ticket.contextIdentity },
      },
    ],
    skipDuplicates: true,
  });
  const row = await prisma.webhookDelivery.findUniqueOrThrow({
    where: { messageId },
    select: { id: true, attempts: true },
  });
  if (created.count === 0 && row.attempts > 0) return { outcome: 'skipped' };

  const timeoutMs = Math.min(hook.timeoutMs, phaseLeftMs);
  // Never throws: a secret this process cannot decrypt is a failed consultation, recorded.
  const post = () =>
    postSigned(prisma, {
      webhookId: hook.id,
      messageId,
      url: hook.url,
      body: JSON.stringify(request),
      timeoutMs,
      requireWholeBody: true,
    });
  const res = slots
    ? await slots.run({ hostId: ticket.hostId, kind: 'resolver', timeoutMs }, post)
    : await post();
  const attempt = { deliveryId: row.id, webhookId: hook.id, hostId: ticket.hostId };
  try {
    return await settleConsultation(ticket.id, ticket.contextIdentity, attempt, res);
  } catch (err) {
    // The request went out but what followed threw (the decision or the
    // attempt's write failed). Before, the row kept 0 attempts while BullMQ
    // ran the job again, consulting again each time, and the delivery log
    // showed nothing: the try is recorded as a failed attempt with its error
    // (the ticket then goes to the reviewers). Only when that cannot be
    // written either does the job throw and BullMQ run it again.
    const error = attemptErrorText(err, 'attempt_error');
    await recordAttempt(prisma, {
      ...attempt,
      attempt: 1,
      retry: false,
      result: { ok: false, status: res.status, latencyMs: res.latencyMs, error },
    }).catch(() => {
      throw err;
    });
    log.warn({ ticketId, error }, 'resolver consultation threw after its request; recorded');
    return { outcome: 'failed', reason: error };
  }
}

/** Applies the answer and records the attempt (and its audit event). */
async function settleConsultation(
  ticketId: string,
  identity: string | null,
  attempt: { deliveryId: string; webhookId: string; hostId: string },
  res: AttemptResult,
): Promise<ConsultResult> {
  const prisma = await db();
  const result = res.ok
    ? await applyAnswer(ticketId, identity, res.body ?? '')
    : {
        outcome: 'failed' as const,
        reason: res.error ?? 'failed',
      };
  const answered = result.outcome !== 'failed' && result.outcome !== 'invalid';
  await recordAttempt(prisma, {
    ...attempt,
    attempt: 1,
    retry: false,
    // A well-formed answer is a delivered consultation, even `unresolved`.
    result: answered
      ? { ...res, ok: true, error: undefined }
      : { ...res, ok: false, error: result.reason },
  });
  if (answered && result.reason) {
    await prisma.webhookDelivery.update({
      where: { id: attempt.deliveryId },
      data: { lastError: result.reason },
    });
  }
  await prisma.auditEvent.create({
    data: {
      actorKind: 'resolver',
      action: 'webhook.resolver_consulted',
      targetType: 'ticket',
      targetId: ticketId,
      details: { outcome: result.outcome, reason: result.reason ?? null } as Prisma.InputJsonObject,
    },
  });
  log.info({ ticketId, outcome: result.outcome, reason: result.reason }, 'resolver consulted');
  return result;
}

async function applyAnswer(
  ticketId: string,
  identity: string | null,
  text: string,
): Promise<ConsultResult> {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return { outcome: 'invalid', reason: 'resolution_not_json' };
  }
  const check = validateResolution(answer, identity);
  if (!check.ok) return { outcome: 'invalid', reason: check.reason };
  if (check.outcome === 'unresolved') return { outcome: 'unresolved', reason: 'unresolved' };
  const v = check.verdict;
  // U+0000 is a valid answer (§4.4) the store cannot hold: refuse it as an
  // invalid answer (the ticket goes to the reviewers) before the write fails.
  // The whole verdict, since a decision may store any of its members.
  const nulAt = findNulCharacter(v, '$.verdict');
  if (nulAt) {
    log.warn({ ticketId, path: nulAt }, 'resolver answer holds U+0000');
    return { outcome: 'invalid', reason: 'nul_character' };
  }
  try {
    if (check.outcome === 'approve') {
      const edit =
        v.decision === 'transform' && v.transform
          ? { path: v.transform.path, value: v.transform.value ?? null }
          : undefined;
      await decideTicket({
        ticketId,
        actor: { kind: 'resolver' },
        outcome: 'approve',
        contextIdentity: identity,
        edit,
      });
      return { outcome: 'approved' };
    }
    await decideTicket({
      ticketId,
      actor: { kind: 'resolver' },
      outcome: 'reject',
      contextIdentity: identity,
      // §9: the resolver's deny is what the host enforces, its reason code included.
      reasonCode: v.reason,
      reason: v.message ?? v.reason ?? 'rejected by the resolver',
    });
    return { outcome: 'rejected' };
  } catch (err) {
    // A decision the server refuses (edit on a redacted path, already decided)
    // leaves the ticket as it is: humans decide.
    if (err instanceof DecisionError) return { outcome: 'invalid', reason: `decision_${err.code}` };
    throw err;
  }
}
