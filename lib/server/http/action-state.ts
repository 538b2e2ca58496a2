import 'server-only';
import { AppError } from './api-error';

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
 * code, per-field errors). Anything else is rethrown: Next's redirects must
 * pass, and real failures belong to the error page.
 */
export function actionErrorState(
  err: unknown,
  values?: Record<string, string>,
  options: ActionErrorOptions = {},
): ActionErrorState {
  if (!(err instanceof AppError) || err.status >= 500) throw err;
  const message = options.describe?.(err) ?? err.message;
  const details = err.details as { fields?: ActionErrorState['fields'] } | undefined;
  const field = options.fieldOf?.(err);
  const fields =
    details?.fields ?? (field ? { [field]: { code: err.code, message: err.message } } : undefined);
  return { status: 'error', code: err.code, message, fields, values };
}
