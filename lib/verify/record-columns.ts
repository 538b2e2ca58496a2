import { createHash } from 'node:crypto';
import { HOST_ERROR_PREFIX, type InterceptionRecord } from '@checkpoint/agent-hooks';

/**
 * What the audit pages show of a record besides its JSON, derived from the
 * JSON alone (pure, so the server's store and the offline verifier derive
 * it the same way). The store copies these into indexed columns; a copied
 * column is trusted only as far as it equals this derivation.
 */

/** Columns the audit browser filters on, taken from a checked record. */
export function recordColumns(r: InterceptionRecord) {
  const reason = r.verdict.reason ?? null;
  const ts = r.timestamp === undefined ? null : new Date(r.timestamp);
  return {
    interceptionPoint: r.interception_point,
    mode: r.mode,
    decision: r.verdict.decision,
    reason,
    resolvedBy: r.resolved_by ?? null,
    foldTruncated: r.fold_truncated ?? null,
    // decided_by is optional in the spec's record schema; absent reads as null.
    decidedBy: r.decided_by ?? null,
    hostError: reason?.startsWith(HOST_ERROR_PREFIX) ?? false,
    identityProvider: r.identity_provider,
    inputIdentity: r.input_identity,
    enforcedIdentity: r.enforced_identity,
    // An unparseable timestamp stays in the record verbatim; the column stays empty.
    timestamp: ts && !Number.isNaN(ts.getTime()) ? ts : null,
  };
}

/**
 * A record's displayed columns as an export line carries them (snake_case,
 * the CSV export's names; the timestamp as ISO 8601 UTC with milliseconds),
 * or null when the JSON is not a record the derivation can read.
 */
export type DisplayedColumns = {
  interception_point: unknown;
  mode: unknown;
  decision: unknown;
  reason: unknown;
  resolved_by: unknown;
  fold_truncated: unknown;
  decided_by: unknown;
  host_error: unknown;
  host_failure: unknown;
  identity_provider: unknown;
  input_identity: unknown;
  enforced_identity: unknown;
  timestamp: unknown;
};

export const DISPLAYED_COLUMNS = [
  'interception_point',
  'mode',
  'decision',
  'reason',
  'resolved_by',
  'fold_truncated',
  'decided_by',
  'host_error',
  'host_failure',
  'identity_provider',
  'input_identity',
  'enforced_identity',
  'timestamp',
] as const satisfies readonly (keyof DisplayedColumns)[];

export function displayedColumns(
  record: unknown,
  sessionId: string,
  sequence: number,
): DisplayedColumns | null {
  let c: ReturnType<typeof recordColumns>;
  try {
    c = recordColumns(record as InterceptionRecord);
  } catch {
    return null;
  }
  return {
    interception_point: c.interceptionPoint ?? null,
    mode: c.mode ?? null,
    decision: c.decision ?? null,
    reason: c.reason,
    resolved_by: c.resolvedBy,
    fold_truncated: c.foldTruncated,
    decided_by: c.decidedBy,
    host_error: c.hostError,
    // A host's note about its own failure: empty session id and sequence -1 (§10.3).
    host_failure: sessionId === '' && sequence === -1,
    identity_provider: c.identityProvider ?? null,
    input_identity: c.inputIdentity ?? null,
    enforced_identity: c.enforcedIdentity ?? null,
    timestamp: c.timestamp?.toISOString() ?? null,
  };
}

/**
 * A record's link in its session's hash chain: SHA-256 (hex) over the
 * previous link ('' for the first record of a session) followed by the
 * record's RFC 8785 canonical JSON (§10.2).
 */
export function chainHashOf(prevHash: string | null, canonical: string): string {
  return createHash('sha256')
    .update(prevHash ?? '', 'utf8')
    .update(canonical, 'utf8')
    .digest('hex');
}
