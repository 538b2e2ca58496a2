import 'server-only';
import { AppError } from '@/lib/server/http/api-error';
import { nulCharacterIssue } from '@/lib/server/http/nul-character';
import { type PreparedRecord, prepareRecord, type RecordError } from './validate-record';

/**
 * Judging a batch before the database is touched (all or nothing): every
 * record is validated, and repeats inside the batch are either duplicates
 * (same canonical JSON) or a conflict that refuses the whole batch.
 */

export type RecordConflict = { index: number; session_id: string; sequence: number };

export function prepareAll(values: unknown[], parseErrors: RecordError[]): PreparedRecord[] {
  // `nul_character` refusals also carry the `path` of the offending member.
  const errors: (Omit<RecordError, 'code'> & { code: string; path?: string })[] = [...parseErrors];
  const failed = new Set(parseErrors.map((e) => e.index));
  const prepared: PreparedRecord[] = [];
  values.forEach((value, index) => {
    if (failed.has(index)) return;
    const checked = prepareRecord(value, index);
    if (!checked.ok) {
      errors.push(checked.error);
      return;
    }
    // The whole record is stored (jsonb), and PostgreSQL cannot hold U+0000.
    const nul = nulCharacterIssue(checked.value.record);
    if (nul) errors.push({ index, ...nul });
    else prepared.push(checked.value);
  });
  if (errors.length > 0) {
    errors.sort((a, b) => a.index - b.index);
    throw new AppError(
      'records_invalid',
      `${errors.length} of ${values.length} records were refused; nothing was stored.`,
      { errors },
    );
  }
  return prepared;
}

export function keyOf(r: PreparedRecord): string {
  return r.hostFailure ? `f\u0000${r.contentHash}` : `s\u0000${r.sessionId}\u0000${r.sequence}`;
}

/** Identical repeats inside one request count as duplicates; different ones are a conflict. */
export function dedupeWithinBatch(prepared: PreparedRecord[]) {
  const seen = new Map<string, PreparedRecord>();
  const conflicts: RecordConflict[] = [];
  let duplicates = 0;
  for (const r of prepared) {
    const key = keyOf(r);
    const first = seen.get(key);
    if (!first) seen.set(key, r);
    else if (first.contentHash === r.contentHash) duplicates++;
    else conflicts.push({ index: r.index, session_id: r.sessionId, sequence: r.sequence });
  }
  if (conflicts.length > 0) throw conflictError(conflicts, 'in this request');
  return { unique: [...seen.values()], duplicates };
}

export function conflictError(conflicts: RecordConflict[], where: string): AppError {
  return new AppError(
    'record_conflict',
    `${conflicts.length} records differ from a record already ${where} with the same host, session_id and sequence; nothing was stored.`,
    { conflicts },
  );
}
