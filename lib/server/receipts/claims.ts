import 'server-only';
import { createHash } from 'node:crypto';
import { canonicalJson } from '@checkpoint/agent-hooks';

/**
 * Signed approval receipts (issue 13 item 2): what a receipt says, as a pure
 * function of the stored Decision and ticket rows, so that a receipt issued
 * before the commit (decideTicket), right after it (bulk expiry) or lazily
 * on first read says the same thing. docs/receipts.md is the format's
 * reference for verifiers in other languages.
 */

/** JWS `typ` of a receipt (RFC 7515 §4.1.9, the `application/` prefix omitted). */
export const RECEIPT_TYP = 'checkpoint-receipt+jws';

/** Who decided, in receipts. */
export const DECIDER_KINDS = {
  user: 'user',
  slack: 'slack',
  resolver: 'resolver',
  system: 'system',
} as const;
export type DeciderKind = (typeof DECIDER_KINDS)[keyof typeof DECIDER_KINDS];

/**
 * How the decider authenticated. `unrecorded`: a person's decision made
 * before receipts existed, or through a caller that did not say; a receipt
 * never guesses a method.
 */
export const DECIDER_AUTH = {
  password: 'password',
  sso: 'sso',
  slackLinked: 'slack_linked',
  resolverWebhook: 'resolver_webhook',
  expiry: 'expiry',
  unrecorded: 'unrecorded',
} as const;
export type DeciderAuth = (typeof DECIDER_AUTH)[keyof typeof DECIDER_AUTH];

export type ReceiptOutcome = 'approve' | 'reject' | 'unresolved';

export interface ReceiptClaims {
  iss: string;
  ticket_id: string;
  host_id: string;
  /** The host's own id for the request (ApprovalTicket.requestId), or null. */
  request_id: string | null;
  interception_point: string;
  context_identity: string | null;
  outcome: ReceiptOutcome;
  /** Approve with edit only: where, and a digest of the value (never the value). */
  transform?: { path: string; value_sha256: string };
  decider: { kind: DeciderKind; user_id: string | null; email: string | null; auth: DeciderAuth };
  /** RFC 3339, UTC, millisecond precision: the decision's commit time. */
  decided_at: string;
  /** NumericDate (RFC 7519 §2): when this receipt was signed. */
  iat: number;
}

/** What the claims are made of: the Decision row, its ticket, the decider's email. */
export interface ReceiptSubject {
  ticketId: string;
  hostId: string;
  requestId: string | null;
  interceptionPoint: string;
  contextIdentity: string | null;
  outcome: ReceiptOutcome;
  /** The verdict the resolution carried (Decision.verdict), or null for unresolved. */
  verdict: unknown;
  /** Decision.decidedByKind: human | slack | resolver | system. */
  decidedByKind: string;
  userId: string | null;
  email: string | null;
  /** Decision.deciderAuth, or null for a decision made before it was recorded. */
  deciderAuth: string | null;
  decidedAt: Date;
}

const KIND_OF: Record<string, DeciderKind> = {
  human: DECIDER_KINDS.user,
  slack: DECIDER_KINDS.slack,
  resolver: DECIDER_KINDS.resolver,
  system: DECIDER_KINDS.system,
};

/** The method each kind of decider has when the row holds none. */
const IMPLIED_AUTH: Record<DeciderKind, DeciderAuth> = {
  user: DECIDER_AUTH.unrecorded,
  slack: DECIDER_AUTH.slackLinked,
  resolver: DECIDER_AUTH.resolverWebhook,
  system: DECIDER_AUTH.expiry,
};

const AUTH_VALUES = new Set<string>(Object.values(DECIDER_AUTH));

/**
 * SHA-256 (lowercase hex) of the RFC 8785 canonical JSON (§10.2) of `value`:
 * binds the receipt to the edited value without disclosing it. A verifier
 * holding the value recomputes it; equal JSON values give equal digests
 * whatever their key order.
 */
export function valueSha256(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(value ?? null), 'utf8')
    .digest('hex');
}

/** The receipt's claims for `s`, issued by `iss` at `issuedAt`. */
export function receiptClaims(s: ReceiptSubject, iss: string, issuedAt: Date): ReceiptClaims {
  const kind = KIND_OF[s.decidedByKind];
  if (!kind) throw new Error(`receipt: unknown decider kind ${s.decidedByKind}`);
  const auth =
    s.deciderAuth && AUTH_VALUES.has(s.deciderAuth)
      ? (s.deciderAuth as DeciderAuth)
      : IMPLIED_AUTH[kind];
  const claims: ReceiptClaims = {
    iss,
    ticket_id: s.ticketId,
    host_id: s.hostId,
    request_id: s.requestId,
    interception_point: s.interceptionPoint,
    context_identity: s.contextIdentity,
    outcome: s.outcome,
    decider: { kind, user_id: s.userId, email: s.email, auth },
    decided_at: s.decidedAt.toISOString(),
    iat: Math.floor(issuedAt.getTime() / 1000),
  };
  const transform = transformOf(s.verdict);
  if (transform) claims.transform = transform;
  return claims;
}

function transformOf(verdict: unknown): ReceiptClaims['transform'] | undefined {
  const v = verdict as { decision?: unknown; transform?: { path?: unknown; value?: unknown } };
  if (v?.decision !== 'transform' || typeof v.transform?.path !== 'string') return undefined;
  return { path: v.transform.path, value_sha256: valueSha256(v.transform.value) };
}

/** `deciderAuth` for a decision by `kind` (decideTicket's actor kinds), given a web sign-in method. */
export function deciderAuthOf(kind: string, signInMethod?: 'password' | 'sso'): DeciderAuth {
  if (kind === 'human') return signInMethod ?? DECIDER_AUTH.unrecorded;
  return IMPLIED_AUTH[KIND_OF[kind] ?? DECIDER_KINDS.user];
}
