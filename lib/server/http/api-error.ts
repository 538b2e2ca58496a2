import 'server-only';

/** Stable API error codes: clients and tests branch on these, never on messages. */
export const API_ERROR_CODES = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** A string or member name holds U+0000, which PostgreSQL cannot store (`nul-character.ts`). */
  nul_character: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_CODES | (string & {});

/**
 * An error meant for the caller: the wrapper answers it as
 * `{error: {code, message, details?}}` with `status`. Anything else thrown is
 * logged and answered as a bare 500 `internal`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toJSON() {
    const error: { code: string; message: string; details?: unknown } = {
      code: this.code,
      message: this.message,
    };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }

  toResponse(headers?: HeadersInit): Response {
    return Response.json(this.toJSON(), { status: this.status, headers });
  }
}

/** The JSON error body, for places that answer without throwing (proxy.ts). */
export function errorResponse(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

export const unauthenticated = (message = 'Sign in or send a valid API key.') =>
  new ApiError(401, 'unauthenticated', message);
export const forbidden = (message = "You don't have access to this.") =>
  new ApiError(403, 'forbidden', message);
export const notFound = (what = 'The resource') =>
  new ApiError(404, 'not_found', `${what} was not found.`);
export const conflict = (message: string, code = 'conflict') => new ApiError(409, code, message);
export const invalidRequest = (message: string, details?: unknown, code = 'invalid_request') =>
  new ApiError(400, code, message, details);
