import 'server-only';
import type { ApprovalResolution } from '@checkpoint/agent-hooks';

/** Event type of the callback (Standard Webhooks `type`). */
export const RESOLVED_EVENT = 'approval.resolved';
/** Event type recorded for resolver consultations. */
export const RESOLVE_REQUEST_EVENT = 'approval.request';

export interface CallbackTicket {
  id: string;
  requestId: string | null;
  contextIdentity: string | null;
  status: string;
  decidedAt: Date | null;
  resolution: unknown;
  /** The decision's signed receipt (issue 13), null when it could not be issued. */
  receipt?: string | null;
}

/**
 * The callback body: the released ApprovalResolution (§9) with the ticket
 * id, the host's request id and the context identity, in the Standard
 * Webhooks `{type, timestamp, data}` envelope, and the signed approval
 * receipt (docs/receipts.md). Built once per delivery and stored, so every
 * retry sends the same bytes.
 */
export function callbackPayload(t: CallbackTicket) {
  const resolution: ApprovalResolution = (t.resolution as ApprovalResolution | null) ?? {
    outcome: 'unresolved',
    context_identity: t.contextIdentity,
  };
  return {
    type: RESOLVED_EVENT,
    timestamp: (t.decidedAt ?? new Date()).toISOString(),
    data: {
      ticket_id: t.id,
      request_id: t.requestId,
      context_identity: t.contextIdentity,
      status: t.status,
      resolution,
      receipt: t.receipt ?? null,
    },
  };
}

/** Standard Webhooks ids are `msg_…`; one per logical delivery, reused on every retry. */
export function callbackMessageId(webhookId: string, ticketId: string): string {
  return `msg_${webhookId.replaceAll('-', '')}_${ticketId.replaceAll('-', '')}`;
}
