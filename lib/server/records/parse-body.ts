import 'server-only';
import { AppError } from '@/lib/server/http/api-error';
import { parseJsonBody } from '@/lib/server/http/read-body';
import { MAX_BODY_BYTES, MAX_RECORDS_PER_REQUEST } from './limits';
import { RECORD_ERROR_CODES, type RecordError } from './validate-record';

export type BodyFormat = 'json' | 'ndjson';

/** The parsed body: one entry per record, or the reason its line did not parse (NDJSON). */
export type ParsedBody = { values: unknown[]; errors: RecordError[] };

export function bodyFormat(contentType: string | null): BodyFormat {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json') return 'json';
  if (type === 'application/x-ndjson' || type === 'application/jsonl') return 'ndjson';
  throw new AppError(
    'unsupported_media_type',
    'Send records as application/json (an array) or application/x-ndjson (one per line).',
  );
}

const tooMany = () =>
  new AppError(
    'payload_too_large',
    `A request carries at most ${MAX_RECORDS_PER_REQUEST} records in ${MAX_BODY_BYTES} bytes.`,
  );

/**
 * JSON text → records, through the one JSON parser of the HTTP layer
 * (`parseJsonBody`: `parseJsonText`, not JSON.parse) so that an integer past
 * 2^53−1 or a duplicate member is refused instead of silently changed
 * (§4.4, §10.2): the stored canonical JSON must be what the host hashed.
 */
export function parseRecordsBody(text: string, format: BodyFormat): ParsedBody {
  if (!text.trim()) throw new AppError('json_invalid', 'The request body is empty.');
  if (format === 'json') {
    const value = parseJsonBody(text, MAX_BODY_BYTES);
    if (!Array.isArray(value)) {
      throw new AppError(
        'request_invalid',
        'An application/json body must be an array of records.',
      );
    }
    if (value.length > MAX_RECORDS_PER_REQUEST) throw tooMany();
    return { values: value, errors: [] };
  }
  const values: unknown[] = [];
  const errors: RecordError[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (values.length === MAX_RECORDS_PER_REQUEST) throw tooMany();
    const index = values.length;
    try {
      values.push(parseJsonBody(line, MAX_BODY_BYTES));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      values.push(undefined);
      const code =
        err.code === 'value_domain'
          ? RECORD_ERROR_CODES.valueDomain
          : RECORD_ERROR_CODES.invalidJson;
      errors.push({ index, code, message: err.message });
    }
  }
  return { values, errors };
}
