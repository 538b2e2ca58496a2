import 'server-only';
import { AppError, type ErrorCode } from '../http/api-error';

/**
 * Why a decision was refused. Stable codes from the one table
 * (lib/server/http/error-codes.ts): the inbox, Slack and the resolver match
 * on `code`, the HTTP layer answers `status`.
 */
export type DecisionErrorCode = Extract<
  ErrorCode,
  | 'not_found'
  | 'identity_stale'
  | 'already_decided'
  | 'expired'
  | 'reason_required'
  | 'edit_touches_redacted'
  | 'edit_path_invalid'
  | 'edit_value_invalid'
  | 'resolution_invalid'
  /** PostgreSQL text cannot hold U+0000: an edit or reason carrying one cannot be stored. */
  | 'nul_character'
  | 'forbidden'
  /** Issue 6: the host's automated resolver holds the ticket; reviewers wait. */
  | 'with_resolver'
>;

export type DecidedBy = { kind: string; userId?: string; email?: string };

export class DecisionError extends AppError {
  /** Set for `already_decided`: who won, and when. */
  decidedBy?: DecidedBy;
  decidedAt?: Date;

  constructor(
    override readonly code: DecisionErrorCode,
    message: string,
  ) {
    super(code, message);
    this.name = 'DecisionError';
  }
}

/**
 * Why an approval request was refused at intake. Every one of them stores
 * nothing; 400s are shape problems, 422s are well-formed requests the server
 * cannot bind (identity, redaction).
 */
export type IntakeErrorCode = Extract<
  ErrorCode,
  | 'json_invalid'
  | 'value_domain'
  | 'request_invalid'
  | 'identity_invalid'
  | 'provider_invalid'
  | 'point_invalid'
  | 'verdict_invalid'
  | 'verdict_not_liftable'
  | 'context_invalid'
  | 'label_invalid'
  | 'timeout_invalid'
  | 'deny_set_invalid'
  | 'request_id_invalid'
  | 'payload_too_large'
  | 'identity_mismatch'
  | 'redaction_required'
  /** The host's stored redaction paths no longer parse (§5.2): fail closed until re-saved. */
  | 'redaction_paths_invalid'
>;

export class IntakeError extends AppError {
  constructor(
    override readonly code: IntakeErrorCode,
    message: string,
    details?: unknown,
  ) {
    super(code, message, details);
    this.name = 'IntakeError';
  }
}
