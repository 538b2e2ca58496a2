import 'server-only';
import {
  type ApprovalConsultation,
  type ApprovalRequest,
  type ApprovalResolution,
  type ApprovalResolver,
  denySetOf,
} from '@checkpoint/agent-hooks';
import { createApprovalTicket, type TicketRef } from '../approvals/intake';
import { awaitTicket } from '../approvals/wait';

export interface QueueResolverOptions {
  /** The host whose tickets these are (the built-in host for in-process emissions). */
  hostId: string;
  /** Ticket deadline; the host's default when absent. */
  ticketTimeoutMs?: number;
  sessionLabel?: string;
  agentLabel?: string;
  onTicket?: (ticket: TicketRef) => void;
  /** The re-wait jitter's random source, in [0, 1) like Math.random (the default); for tests. */
  random?: () => number;
}

/** One wait on the ticket, before the loop reads it again. */
export const RESOLVER_WAIT_MS = 30_000;
/** Each wait varies by this fraction either way. */
export const RESOLVER_WAIT_JITTER = 0.2;

/**
 * RESOLVER_WAIT_MS ±20 %, drawn anew for every wait: consultations that
 * started together (a burst of emissions) otherwise re-read their tickets
 * in the same instant every 30 s for as long as they wait (issue 17).
 */
export function resolverWaitMs(random: () => number = Math.random): number {
  const spread = 1 - RESOLVER_WAIT_JITTER + 2 * RESOLVER_WAIT_JITTER * random();
  return Math.round(RESOLVER_WAIT_MS * spread);
}

/**
 * The in-process approval resolver (§9): the same intake as
 * `POST /api/v1/approvals` (validation, redaction, identity binding,
 * idempotency), then a wait on the ticket until it is decided or expires.
 * An expired ticket answers `unresolved`; an intake refusal throws, which
 * the engine reports as `host_error:approval_resolver_failed`.
 */
export function QueueResolver(options: QueueResolverOptions): ApprovalResolver {
  return async (
    request: ApprovalRequest,
    signal?: AbortSignal,
    consultation?: ApprovalConsultation,
  ): Promise<ApprovalResolution> => {
    const body: Record<string, unknown> = { ...request };
    // The same deny_set a remote host sends, validated by the same intake.
    const denySet = denySetOf(consultation);
    if (denySet) body.deny_set = denySet;
    if (options.sessionLabel) body.session = options.sessionLabel;
    if (options.agentLabel) body.agent = options.agentLabel;
    if (options.ticketTimeoutMs) body.timeout_ms = options.ticketTimeoutMs;
    const { ticket } = await createApprovalTicket(options.hostId, body);
    options.onTicket?.(ticket);
    for (;;) {
      if (signal?.aborted) throw new Error('approval consultation aborted');
      // awaitTicket returns at the ticket's deadline (expired) or when woken,
      // so the wait's length only sets how often an undecided ticket is re-read.
      const answer = await awaitTicket(ticket.id, {
        hostId: options.hostId,
        waitMs: resolverWaitMs(options.random),
        signal,
      });
      if (!answer) throw new Error('approval ticket vanished');
      if (answer.state === 'resolved') return answer.resolution;
    }
  };
}
