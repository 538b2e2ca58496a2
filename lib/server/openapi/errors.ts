import 'server-only';
import { ERROR_CODES, type ErrorCode } from '@/lib/server/http/error-codes';
import { componentRef, type JsonSchema } from './spec-components';

/**
 * Errors in the document, all from the one table (error-codes.ts): the
 * shared `Error` body (`AppError.toJSON`), its code enum and the whole table
 * as `x-error-codes`, the table in the document's description, and each
 * operation's error responses grouped by status.
 */

const ALL_CODES = Object.keys(ERROR_CODES) as ErrorCode[];

/** `{error: {code, message, details?}}`, as route() answers every refusal. */
export function errorSchema(): JsonSchema {
  return {
    type: 'object',
    description:
      'Every refusal. Branch on `error.code` (or the status), never on `message`. `x-error-codes` lists every code with its one status.',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', enum: ALL_CODES },
          message: { type: 'string', description: 'For people; may change.' },
          details: {
            description:
              'Per code: `issues` (request_invalid), `errors` (records_invalid), `path` (nul_character), `paths` (redaction codes).',
          },
        },
      },
    },
    'x-error-codes': ALL_CODES.map((code) => ({
      code,
      status: ERROR_CODES[code].status,
      area: ERROR_CODES[code].area,
      meaning: ERROR_CODES[code].when,
    })),
  };
}

/** The table for the document's description (Markdown). */
export function errorTableMarkdown(): string {
  const rows = ALL_CODES.map(
    (c) => `| \`${c}\` | ${ERROR_CODES[c].status} | ${ERROR_CODES[c].when} |`,
  );
  return ['| code | status | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  500: 'Internal error',
  503: 'Unavailable (a dependency; retry after `Retry-After`)',
};

/** The 401 of a host route also says how to authenticate (RFC 6750). */
const WWW_AUTHENTICATE = {
  'WWW-Authenticate': {
    description: 'Always `Bearer realm="checkpoint"`.',
    schema: { type: 'string' },
  },
};

/** A 503 (a database or queue outage) always says when to retry. */
const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'string' },
  },
};

/** An operation's error responses: one per status, each code an example. */
export function errorResponses(codes: readonly ErrorCode[]): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of new Set(codes)) {
    const status = ERROR_CODES[c].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), c]);
  }
  const out: Record<string, JsonSchema> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const list = byStatus.get(status)!;
    const examples = Object.fromEntries(
      list.map((c) => [
        c,
        { summary: c, value: { error: { code: c, message: ERROR_CODES[c].when } } },
      ]),
    );
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${list.map((c) => `\`${c}\``).join(', ')}.`,
      ...(status === 401 ? { headers: WWW_AUTHENTICATE } : {}),
      ...(status === 503 ? { headers: RETRY_AFTER } : {}),
      content: { 'application/json': { schema: { $ref: componentRef('Error') }, examples } },
    };
  }
  return out;
}
