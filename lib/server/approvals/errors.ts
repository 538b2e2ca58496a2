import 'server-only';

/**
 * Why a decision was refused. Stable codes: the inbox and tests match on
 * `code`, the HTTP layer answers `status`.
 */
export type DecisionErrorCode =
  | 'not_found'
  | 'identity_mismatch'
  | 'already_decided'
  | 'expired'
  | 'reason_required'
  | 'edit_touches_redacted'
  | 'edit_path_invalid'
  | 'value_domain'
  | 'resolution_invalid'
  /** PostgreSQL text cannot hold U+0000: an edit or reason carrying one cannot be stored. */
  | 'nul_character'
  | 'forbidden'
  /** Issue 6: the host's automated resolver holds the ticket; reviewers wait. */
  | 'with_resolver';

const STATUS: Record<DecisionErrorCode, number> = {
  not_found: 404,
  identity_mismatch: 409,
  already_decided: 409,
  expired: 409,
  reason_required: 400,
  edit_touches_redacted: 422,
  edit_path_invalid: 422,
  value_domain: 422,
  resolution_invalid: 422,
  nul_character: 422,
  forbidden: 403,
  with_resolver: 409,
};

export type DecidedBy = { kind: string; userId?: string; email?: string };

export class DecisionError extends Error {
  readonly status: number;
  /** Set for `already_decided`: who won, and when. */
  decidedBy?: DecidedBy;
  decidedAt?: Date;

  constructor(
    readonly code: DecisionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DecisionError';
    this.status = STATUS[code];
  }
}

/**
 * Why an approval request was refused at intake. Every one of them stores
 * nothing; 400s are shape problems, 422s are well-formed requests the server
 * cannot bind (identity, redaction).
 */
export type IntakeErrorCode =
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
  | 'redaction_paths_invalid';

export class IntakeError extends Error {
  readonly status: number;

  constructor(
    readonly code: IntakeErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'IntakeError';
    this.status =
      code === 'identity_mismatch' ||
      code === 'redaction_required' ||
      code === 'redaction_paths_invalid'
        ? 422
        : code === 'payload_too_large'
          ? 413
          : 400;
  }
}
