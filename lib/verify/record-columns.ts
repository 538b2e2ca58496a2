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
  // The same derivation as recordColumns (a unit test holds them equal),
  // written out: the verifier runs it for every record line, and the Date
  // round trip of the timestamp was most of its cost.
  const r = record as InterceptionRecord;
  let reason: string | null;
  let hostError: boolean;
  try {
    // What throws here is what makes recordColumns throw: no readable record.
    reason = r.verdict.reason ?? null;
    hostError = reason?.startsWith(HOST_ERROR_PREFIX) ?? false;
  } catch {
    return null;
  }
  const t = r.timestamp as unknown;
  return {
    interception_point: r.interception_point ?? null,
    mode: r.mode ?? null,
    decision: r.verdict.decision ?? null,
    reason,
    resolved_by: r.resolved_by ?? null,
    fold_truncated: r.fold_truncated ?? null,
    decided_by: r.decided_by ?? null,
    host_error: hostError,
    // A host's note about its own failure: empty session id and sequence -1 (§10.3).
    host_failure: sessionId === '' && sequence === -1,
    identity_provider: r.identity_provider ?? null,
    input_identity: r.input_identity ?? null,
    enforced_identity: r.enforced_identity ?? null,
    timestamp:
      t === undefined ? null : typeof t === 'string' && isCanonicalIso(t) ? t : isoTimestamp(t),
  };
}

/** The timestamp column of a record timestamp: ISO 8601 UTC with milliseconds, or null when unparseable. */
export function isoTimestamp(value: unknown): string | null {
  const d = new Date(value as string);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether `s` is already what `isoTimestamp(s)` answers (`YYYY-MM-DDTHH:mm:ss.sssZ`,
 * a real calendar date and time), so it is its own column without a Date.
 * Conservative: false sends a value the long way, never to a different answer.
 */
export function isCanonicalIso(s: string): boolean {
  if (s.length !== 24) return false;
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 2);
  const day = digitsAt(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : (DAYS[month - 1] as number))) return false;
  const hour = digitsAt(s, 11, 2);
  const minute = digitsAt(s, 14, 2);
  const second = digitsAt(s, 17, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  return (
    digitsAt(s, 20, 3) >= 0 &&
    s.charCodeAt(4) === 45 && // -
    s.charCodeAt(7) === 45 &&
    s.charCodeAt(10) === 84 && // T
    s.charCodeAt(13) === 58 && // :
    s.charCodeAt(16) === 58 &&
    s.charCodeAt(19) === 46 && // .
    s.charCodeAt(23) === 90 // Z
  );
}

/** The decimal value of s[from, from + n), or -1 when any of them is not a digit. */
function digitsAt(s: string, from: number, n: number): number {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
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
