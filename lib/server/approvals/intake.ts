import 'server-only';
import { randomUUID } from 'node:crypto';
import { db } from '../db';
import { assertNoNulCharacter } from '../http/nul-character';
import { parseJsonBody } from '../http/read-body';
import { approvalExpireDedupeKey, ticketFanoutDedupeKey } from '../jobs/definitions';
import { nudgeRelay, validateOutboxInput } from '../queue/outbox';
import { IntakeError } from './errors';
import { publishTicketEvent } from './events';
import { bindContext } from './redact-request';
import { resolverPhaseEnd } from './resolver-phase';
import { storedContextText } from './stored-context';
import { ensureApprovalsRuntime } from './runtime';
import { moduleLogger } from '../logger';
import { unmatchedRedactionPaths } from '../hosts/redaction-coverage';
import { validateApprovalRequest } from './validate-request';

const log = moduleLogger('approvals.intake');

/** The largest request body accepted (§12.3: the engine's context bound, plus the envelope). */
export const MAX_REQUEST_BYTES = 5 * 1024 * 1024 + 64 * 1024;

export interface TicketRef {
  id: string;
  hostId: string;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  expiresAt: Date;
  contextIdentity: string | null;
}

/**
 * The raw-text funnel: integers beyond ±(2^53−1), lone surrogates, duplicate
 * members and excessive depth are refused on the text, before JSON.parse can
 * round or drop anything (§4.4, §10.2).
 */
export function parseApprovalText(text: string): unknown {
  return parseJsonBody(text, MAX_REQUEST_BYTES);
}

/**
 * Intake of one approval request for `hostId`: validate (§4, §5, §9),
 * redact with the host's paths and bind the identity (redact-request.ts),
 * then write the ticket, its expiry job and its fan-out job in one
 * transaction. The same host + identity again returns the existing ticket
 * (`created: false`), whatever its state. Throws IntakeError (or AppError
 * `nul_character`, 422); a refused request stores nothing.
 */
export async function createApprovalTicket(
  hostId: string,
  body: unknown,
): Promise<{ ticket: TicketRef; created: boolean }> {
  ensureApprovalsRuntime();
  const req = validateApprovalRequest(body);
  const prisma = await db();
  const [host, resolver] = await Promise.all([
    prisma.host.findUnique({
      where: { id: hostId },
      select: {
        defaultTimeoutMs: true,
        maxTimeoutMs: true,
        redactionPaths: true,
        archivedAt: true,
      },
    }),
    prisma.webhook.findUnique({
      where: { hostId_kind: { hostId, kind: 'resolver' } },
      select: { enabled: true, timeoutMs: true },
    }),
  ]);
  if (!host || host.archivedAt) throw new Error(`host ${hostId} is not active`);
  if (req.timeoutMs !== undefined && req.timeoutMs > host.maxTimeoutMs) {
    throw new IntakeError(
      'timeout_invalid',
      `timeout_ms exceeds this host's maximum of ${host.maxTimeoutMs} ms.`,
      { maxTimeoutMs: host.maxTimeoutMs },
    );
  }
  const bound = bindContext(
    req.context,
    host.redactionPaths,
    req.contextIdentity,
    req.identityProvider,
  );
  // What is written below, under the request's own member names: the stored
  // (redacted) context, not the posted one — a NUL under a redaction path
  // never reaches the database. 422 nul_character; nothing stored.
  assertNoNulCharacter({
    context_identity: req.contextIdentity,
    identity_provider: req.identityProvider,
    verdict: req.verdict,
    context: bound.context,
    deny_set: req.denySet ?? null,
    session: req.sessionLabel ?? null,
    agent: req.agentLabel ?? null,
    request_id: req.requestId ?? null,
  });

  const ctx = bound.context;
  // A configured path that reaches nothing in this request hides nothing:
  // recorded on the ticket (named on its page and the host's), never silent.
  const redactionMisses = unmatchedRedactionPaths(host.redactionPaths, req.context);
  const toolCall = (ctx as { tool_call?: { name?: unknown } }).tool_call;
  const now = Date.now();
  const expiresAt = new Date(now + (req.timeoutMs ?? host.defaultTimeoutMs));
  // Issue 6: with an enabled resolver, the ticket is the resolver's first (resolver-phase.ts).
  const resolverUntil = resolverPhaseEnd(
    now,
    expiresAt,
    resolver?.enabled ? resolver.timeoutMs : null,
  );
  // The id is chosen here so that the ticket and its jobs go in one batch
  // transaction (one round trip, no interactive transaction).
  const id = randomUUID();
  const jobs = [
    validateOutboxInput({
      kind: 'approvals.expire',
      payload: { ticketId: id },
      dedupeKey: approvalExpireDedupeKey(id),
      availableAt: expiresAt,
    }),
    // Fan-out (resolver webhook, Slack): lib/server/jobs/approvals-fanout.ts.
    validateOutboxInput({
      kind: 'approvals.created',
      // The host: for the relay's per-host priority (queue/relay.ts).
      payload: { ticketId: id, hostId },
      dedupeKey: ticketFanoutDedupeKey('approvals.created', id),
    }),
  ];
  // The exact text the identity covers (stored-context.ts). The Json columns
  // (context, and the verdict and deny set reviewers also see) are written
  // from text by SQL: Prisma's Json input drops a member named "__proto__",
  // and the reviewer would approve content unseen.
  const contextJson = storedContextText(ctx);
  const verdictJson = JSON.stringify(req.verdict);
  const denySetJson = req.denySet ? JSON.stringify(req.denySet) : null;
  let ticket: TicketRef;
  try {
    [ticket] = await prisma.$transaction([
      prisma.approvalTicket.create({
        data: {
          id,
          hostId,
          contextIdentity: req.contextIdentity,
          identityProvider: req.identityProvider,
          interceptionPoint: ctx.interception_point,
          verdict: {},
          context: {},
          contextJson,
          redactedPaths: bound.redactedPaths,
          redactionChecked: host.redactionPaths,
          redactionMisses,
          sessionId: ctx.session.id,
          sequence:
            Number.isSafeInteger(ctx.sequence) && ctx.sequence <= 2_147_483_647
              ? ctx.sequence
              : null,
          agentId: ctx.agent.id,
          sessionLabel: req.sessionLabel ?? null,
          agentLabel: req.agentLabel ?? null,
          requestId: req.requestId ?? null,
          toolName: typeof toolCall?.name === 'string' ? toolCall.name : null,
          reason: req.verdict.reason ?? null,
          createdAt: new Date(now),
          expiresAt,
          resolverUntil,
        },
        select: TICKET_REF,
      }),
      prisma.$executeRaw`UPDATE "ApprovalTicket"
        SET "context" = ${contextJson}::jsonb, "verdict" = ${verdictJson}::jsonb,
            "denySet" = ${denySetJson}::jsonb
        WHERE "id" = ${id}::uuid`,
      prisma.outboxEvent.createMany({ data: jobs }),
    ]);
  } catch (err) {
    // The same host + identity exists (a retry, or two posts racing): the same ticket.
    if ((err as { code?: string }).code === 'P2002' && req.contextIdentity !== null) {
      const existing = await findByIdentity(hostId, req.contextIdentity);
      if (existing) return { ticket: existing, created: false };
    }
    throw err;
  }
  nudgeRelay();
  if (redactionMisses.length > 0) {
    log.warn(
      { ticketId: ticket.id, hostId, point: ctx.interception_point, paths: redactionMisses },
      'redaction paths matched nothing in this request: nothing was hidden for them',
    );
  }
  publishTicketEvent({
    type: 'created',
    ticketId: ticket.id,
    hostId,
    expiresAt: ticket.expiresAt.toISOString(),
  });
  return { ticket, created: true };
}

const TICKET_REF = {
  id: true,
  hostId: true,
  status: true,
  expiresAt: true,
  contextIdentity: true,
} as const;

async function findByIdentity(hostId: string, contextIdentity: string): Promise<TicketRef | null> {
  const prisma = await db();
  return prisma.approvalTicket.findUnique({
    where: { hostId_contextIdentity: { hostId, contextIdentity } },
    select: TICKET_REF,
  });
}
