import 'server-only';
import crypto from 'node:crypto';
import { canonicalJson, DECISIONS, type InterceptionRecord } from '@checkpoint/agent-hooks';
import { validateAgainst } from '@/spec';
import { MAX_COLUMN_INT, MAX_MESSAGE_BYTES } from './limits';

/**
 * One record checked and turned into what the store keeps: the indexed
 * columns, the canonical JSON and its hash. Everything here is pure so that
 * a whole batch is judged before the database is touched.
 */

/** Why a record was refused; tests and clients assert on these. */
export const RECORD_ERROR_CODES = Object.freeze({
  notObject: 'record_not_object',
  invalidJson: 'json_invalid',
  valueDomain: 'value_domain',
  unknownField: 'field_unknown',
  transformValue: 'transform_value_present',
  messageTooLong: 'message_unprojected',
  approvalNotEmpty: 'approval_not_empty',
  outOfRange: 'value_out_of_range',
  schema: 'schema_invalid',
} as const);
export type RecordErrorCode = (typeof RECORD_ERROR_CODES)[keyof typeof RECORD_ERROR_CODES];

export type RecordError = { index: number; code: RecordErrorCode; message: string };

/** What one accepted record becomes. */
export type PreparedRecord = {
  index: number;
  sessionId: string;
  sequence: number;
  hostFailure: boolean;
  canonical: string;
  contentHash: string;
  record: InterceptionRecord;
};

const TOP_LEVEL = new Set([
  'interception_point',
  'mode',
  'verdict',
  'input_identity',
  'enforced_identity',
  'identity_provider',
  'session_id',
  'sequence',
  'timestamp',
  'trace',
  'decided_by',
  'composition',
  'verdicts',
  'fold_truncated',
  'resolved_by',
  'interceptors_registered',
]);

type Check = { ok: true; value: PreparedRecord } | { ok: false; error: RecordError };

/**
 * SHA-256 (hex) of the UTF-8 text. The one-shot `crypto.hash` (Node ≥
 * 20.12) where present: building a Hash object per record cost the ingest
 * several times the hashing itself.
 */
export const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * A host-failure record is a host's note about its own failure, outside any
 * session: empty session id and sequence -1. The schema's `minimum: 0` is
 * waived for exactly that pair; everything else is checked as usual.
 */
export function isHostFailure(value: { session_id?: unknown; sequence?: unknown }): boolean {
  return value.session_id === '' && value.sequence === -1;
}

export function prepareRecord(value: unknown, index: number): Check {
  const fail = (code: RecordErrorCode, message: string): Check => ({
    ok: false,
    error: { index, code, message },
  });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail(RECORD_ERROR_CODES.notObject, 'A record must be a JSON object.');
  }
  const rec = value as Record<string, unknown>;
  const unknown = Object.keys(rec).filter((k) => !TOP_LEVEL.has(k));
  if (unknown.length > 0) {
    return fail(
      RECORD_ERROR_CODES.unknownField,
      `Unknown top-level field ${JSON.stringify(unknown[0])} (§10.3 records are closed).`,
    );
  }
  const payload = payloadFreeViolation(rec.verdict);
  if (payload) return fail(payload.code, payload.message);

  const hostFailure = isHostFailure(rec);
  const checked = validateAgainst('record', rec);
  if (!checked.ok) {
    return fail(RECORD_ERROR_CODES.schema, checked.errors.slice(0, 3).join('; '));
  }
  const stored = storeRuleViolation(rec, hostFailure);
  if (stored) return fail(RECORD_ERROR_CODES.schema, stored);
  const record = rec as unknown as InterceptionRecord;
  if (record.sequence > MAX_COLUMN_INT || (record.decided_by ?? 0) > MAX_COLUMN_INT) {
    return fail(
      RECORD_ERROR_CODES.outOfRange,
      `sequence and decided_by must be ≤ ${MAX_COLUMN_INT}.`,
    );
  }
  const canonical = canonicalJson(record);
  return {
    ok: true,
    value: {
      index,
      sessionId: record.session_id,
      sequence: record.sequence,
      hostFailure,
      canonical,
      contentHash: sha256Hex(canonical),
      record,
    },
  };
}

const PROJECTION_MEMBERS = new Set([
  'decision',
  'reason',
  'message',
  'warnings',
  'approval',
  'transform',
  'evidence',
  'result_labels',
]);

const stringOrNull = (v: unknown) => v === undefined || v === null || typeof v === 'string';
const arrayOrNull = (v: unknown) => v === undefined || v === null || Array.isArray(v);

/**
 * What the store adds to the record schema, which (like the spec's) leaves
 * the verdict projection open: the store keeps exactly the §10.3 projection
 * members, with a decision it can index, and a session sequence ≥ 0 unless
 * the record is a host failure. Null optional members are absent (§5.2), so
 * a null reason or message is accepted and indexed as no reason.
 */
function storeRuleViolation(rec: Record<string, unknown>, hostFailure: boolean): string | null {
  if ((rec.sequence as number) < 0 && !hostFailure) {
    return '/sequence must be >= 0 (only a host-failure record carries -1, §10.3)';
  }
  const v = rec.verdict as Record<string, unknown>;
  const extra = Object.keys(v).find((k) => !PROJECTION_MEMBERS.has(k));
  if (extra !== undefined) {
    return `/verdict must NOT have additional property ${JSON.stringify(extra)} (§10.3 projection)`;
  }
  if (!(DECISIONS as readonly unknown[]).includes(v.decision)) {
    return '/verdict/decision must be allow, deny or transform';
  }
  if (!stringOrNull(v.reason) || !stringOrNull(v.message)) {
    return '/verdict reason and message must be strings or null';
  }
  if (!arrayOrNull(v.result_labels) || !(v.result_labels ?? []).every(isString)) {
    return '/verdict/result_labels must be an array of strings or null';
  }
  if (!arrayOrNull(v.warnings) || !(v.warnings ?? []).every(isWarning)) {
    return '/verdict/warnings must be {reason?, message?} objects of strings or nulls';
  }
  if (v.evidence !== undefined && !isPlainObject(v.evidence)) {
    return '/verdict/evidence must be an object';
  }
  return null;
}

const isString = (v: unknown) => typeof v === 'string';

function isWarning(w: unknown): boolean {
  if (!isPlainObject(w)) return false;
  return (
    Object.keys(w).every((k) => k === 'reason' || k === 'message') &&
    stringOrNull(w.reason) &&
    stringOrNull(w.message)
  );
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The §10.3 projection rules, checked before the schema so that the answer
 * names the rule (the schema would only say "additional property").
 */
function payloadFreeViolation(verdict: unknown): { code: RecordErrorCode; message: string } | null {
  if (verdict === null || typeof verdict !== 'object' || Array.isArray(verdict)) return null;
  const v = verdict as Record<string, unknown>;
  const transform = v.transform as Record<string, unknown> | undefined;
  if (transform && typeof transform === 'object' && Object.hasOwn(transform, 'value')) {
    return {
      code: RECORD_ERROR_CODES.transformValue,
      message: 'verdict.transform.value is target content; records carry only the path (§10.3).',
    };
  }
  if (tooLong(v.message)) {
    return {
      code: RECORD_ERROR_CODES.messageTooLong,
      message: `verdict.message is over ${MAX_MESSAGE_BYTES} UTF-8 bytes; send the §10.3 projection.`,
    };
  }
  if (Array.isArray(v.warnings)) {
    const at = v.warnings.findIndex((w) => tooLong((w as { message?: unknown } | null)?.message));
    if (at >= 0) {
      return {
        code: RECORD_ERROR_CODES.messageTooLong,
        message: `verdict.warnings[${at}].message is over ${MAX_MESSAGE_BYTES} UTF-8 bytes; send the §10.3 projection.`,
      };
    }
  }
  const approval = v.approval;
  if (approval !== undefined && !isEmptyObject(approval)) {
    return {
      code: RECORD_ERROR_CODES.approvalNotEmpty,
      message: 'verdict.approval must be {} in a record: presence kept, members stripped (§10.3).',
    };
  }
  return null;
}

function tooLong(message: unknown): boolean {
  return typeof message === 'string' && Buffer.byteLength(message, 'utf8') > MAX_MESSAGE_BYTES;
}

function isEmptyObject(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  );
}

/** Columns the audit browser filters on (pure: lib/verify derives them the same way offline). */
export { recordColumns } from '@/lib/verify/record-columns';
