import 'server-only';
import { AppError } from './api-error';
import { classifyOutage } from './outage';

/** The error half of a form's state (app/components/form-state.ts has the whole). */
export type ActionErrorState = {
  status: 'error';
  code: string;
  message: string;
  fields?: Record<string, { code: string; message: string }>;
  values?: Record<string, string>;
};

export type ActionErrorOptions = {
  /** The form's own wording for an error (the service's message is the fallback). */
  describe?: (err: AppError) => string | undefined;
  /** The input an error belongs to, when the service did not name one in `details.fields`. */
  fieldOf?: (err: AppError) => string | null | undefined;
};

/**
 * The one way a server action answers a refused service call: an AppError
 * (or a subclass) becomes the form's inline error state (message, stable
 * code, per-field errors), and so does a database outage (the form keeps
 * what was typed). Anything else is rethrown: Next's redirects must pass,
 * and real failures belong to the error page.
 */
export function actionErrorState(
  err: unknown,
  values?: Record<string, string>,
  options: ActionErrorOptions = {},
): ActionErrorState {
  const outage = databaseOutageState(err, values);
  if (outage) return outage;
  if (!(err instanceof AppError) || err.status >= 500) throw err;
  const message = options.describe?.(err) ?? err.message;
  const details = err.details as { fields?: ActionErrorState['fields'] } | undefined;
  const field = options.fieldOf?.(err);
  const fields =
    details?.fields ?? (field ? { [field]: { code: err.code, message: err.message } } : undefined);
  return { status: 'error', code: err.code, message, fields, values };
}

/**
 * Issue 17: the API answers a database outage 503 with Retry-After
 * (outage.ts); a form showed Next's error page for the same thing. Its
 * user gets words and a stable code instead, in the form. The services
 * behind these forms write in one transaction, which an outage refuses,
 * cancels or rolls back, so "nothing was changed" holds. Two narrow windows
 * cannot be told apart from here: a connection lost during COMMIT itself,
 * and a read-back after the commit (saveWebhook reads the saved webhook);
 * there the change may have landed, which the reloaded page shows, and a
 * retried decision answers "already decided" (exactly once).
 */
const OUTAGE_WORDS = {
  database_unavailable:
    'The database is unavailable right now; nothing was changed — try again in a moment.',
  database_timeout:
    'The database did not answer in time (busy or locked); nothing was changed — try again in a moment.',
} as const;

/** The form's error state for a database outage behind `err`, or null for anything else. */
export function databaseOutageState(
  err: unknown,
  values?: Record<string, string>,
): ActionErrorState | null {
  const code = classifyOutage(err);
  if (code !== 'database_unavailable' && code !== 'database_timeout') return null;
  return { status: 'error', code, message: OUTAGE_WORDS[code], values };
}

/**
 * Wraps a server action so that a database outage anywhere in it (the
 * session check before its service call included) answers as the form's
 * error instead of Next's error page. Everything else passes unchanged,
 * Next's redirects included. Every form state here extends FormState, whose
 * error half ActionErrorState is.
 */
export function withOutageState<P, S extends { status: string }>(
  action: (prev: P, form: FormData) => Promise<S>,
): (prev: P, form: FormData) => Promise<S> {
  return async (prev, form) => {
    try {
      return await action(prev, form);
    } catch (err) {
      const outage = databaseOutageState(err);
      if (outage) return outage as unknown as S;
      throw err;
    }
  };
}
