import 'server-only';
import { ApiError } from '../http/api-error';
import { readBodyBytes, requireJsonType } from '../http/read-body';
import { DecisionError, IntakeError } from './errors';
import type { TicketRef } from './intake';

/**
 * Reads a request body as text (the raw-text integer check needs the text,
 * not JSON.parse's numbers): 415 unless JSON, 413 past `maxBytes` (declared
 * length, then while streaming).
 */
export async function readJsonText(req: Request, maxBytes: number): Promise<string> {
  requireJsonType(req);
  const bytes = await readBodyBytes(req, maxBytes);
  // fatal: bytes that are not UTF-8 are refused rather than silently replaced (§4.4).
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError(400, 'json_invalid', 'The body is not valid UTF-8.');
  }
}

/** Approvals errors as API errors (same code, same status); anything else is rethrown. */
export function toApiError(err: unknown): never {
  if (err instanceof IntakeError)
    throw new ApiError(err.status, err.code, err.message, err.details);
  if (err instanceof DecisionError) throw new ApiError(err.status, err.code, err.message);
  throw err;
}

/** The 201/200 body of POST /api/v1/approvals. */
export function ticketCreatedBody(ticket: TicketRef, origin: string) {
  return {
    id: ticket.id,
    status: ticket.status,
    expires_at: ticket.expiresAt.toISOString(),
    context_identity: ticket.contextIdentity,
    links: {
      self: `${origin}/api/v1/approvals/${ticket.id}`,
      wait: `${origin}/api/v1/approvals/${ticket.id}?wait=30`,
      ui: `${origin}/approvals/${ticket.id}`,
    },
  };
}
