import 'server-only';
import { type ErrorCode, statusOf } from './error-codes';

export type { ErrorCode } from './error-codes';

/**
 * The one coded error: every refusal meant for a caller (HTTP API or form)
 * is an AppError or a subclass. Its status comes from the one table
 * (error-codes.ts), so a code can never answer two statuses. `route()`
 * answers it as `{error: {code, message, details?}}`; `actionErrorState`
 * turns it into a form's state. Anything else thrown is a 500 `internal`.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = statusOf(code);
    this.details = details;
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

/** The former name, kept so `instanceof ApiError` in pages and tests still holds. */
export const ApiError = AppError;
export type ApiError = AppError;

/** The JSON error body, for places that answer without throwing (proxy.ts). */
export function errorResponse(status: number, code: ErrorCode, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

export const unauthenticated = (message = 'Sign in or send a valid API key.') =>
  new AppError('unauthenticated', message);
export const forbidden = (message = "You don't have access to this.") =>
  new AppError('forbidden', message);
export const notFound = (what = 'The resource') =>
  new AppError('not_found', `${what} was not found.`);
export const conflict = (message: string, code: ErrorCode = 'conflict') =>
  new AppError(code, message);
export const invalidRequest = (
  message: string,
  details?: unknown,
  code: ErrorCode = 'request_invalid',
) => new AppError(code, message, details);
