import 'server-only';
import { parseJsonText } from '@/lib/hooks';
import { ApiError } from '@/lib/server/http/api-error';
import { readBodyBytes } from '@/lib/server/http/read-body';
import { MAX_BODY_BYTES, MAX_RECORDS_PER_REQUEST } from './limits';
import { RECORD_ERROR_CODES, type RecordError } from './validate-record';

export type BodyFormat = 'json' | 'ndjson';

/** The parsed body: one entry per record, or the reason its line did not parse (NDJSON). */
export type ParsedBody = { values: unknown[]; errors: RecordError[] };

export function bodyFormat(contentType: string | null): BodyFormat {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json') return 'json';
  if (type === 'application/x-ndjson' || type === 'application/jsonl') return 'ndjson';
  throw new ApiError(
    415,
    'unsupported_media_type',
    'Send records as application/json (an array) or application/x-ndjson (one per line).',
  );
}

const tooLarge = () =>
  new ApiError(
    413,
    'records_too_large',
    `A request carries at most ${MAX_RECORDS_PER_REQUEST} records in ${MAX_BODY_BYTES} bytes.`,
  );

/** Reads the body as text, refusing it past the byte limit (declared or streamed). */
export async function readBodyText(req: Request, maxBytes = MAX_BODY_BYTES): Promise<string> {
  return new TextDecoder('utf-8').decode(await readBodyBytes(req, maxBytes, tooLarge));
}

/**
 * JSON text → records. `parseJsonText` (not JSON.parse) so that an integer
 * past 2^53−1 or a duplicate member is refused instead of silently changed
 * (§4.4, §10.2): the stored canonical JSON must be what the host hashed.
 */
export function parseRecordsBody(text: string, format: BodyFormat): ParsedBody {
  if (!text.trim()) throw new ApiError(400, 'invalid_request', 'The request body is empty.');
  const limits = { maxBytes: MAX_BODY_BYTES };
  if (format === 'json') {
    let value: unknown;
    try {
      value = parseJsonText(text, limits);
    } catch (err) {
      throw new ApiError(
        400,
        'invalid_json',
        `The body is not valid JSON: ${(err as Error).message}`,
      );
    }
    if (!Array.isArray(value)) {
      throw new ApiError(
        400,
        'invalid_request',
        'An application/json body must be an array of records.',
      );
    }
    if (value.length > MAX_RECORDS_PER_REQUEST) throw tooLarge();
    return { values: value, errors: [] };
  }
  const values: unknown[] = [];
  const errors: RecordError[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (values.length === MAX_RECORDS_PER_REQUEST) throw tooLarge();
    const index = values.length;
    try {
      values.push(parseJsonText(line, limits));
    } catch (err) {
      values.push(undefined);
      errors.push({ index, code: RECORD_ERROR_CODES.invalidJson, message: (err as Error).message });
    }
  }
  return { values, errors };
}
