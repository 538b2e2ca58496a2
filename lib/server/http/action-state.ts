import 'server-only';
import { ApiError } from './api-error';

/** The error half of a form's state (app/components/form-state.ts has the whole). */
export type ActionErrorState = {
  status: 'error';
  code: string;
  message: string;
  fields?: Record<string, { code: string; message: string }>;
  values?: Record<string, string>;
};

/**
 * Turns a service's ApiError into a form's inline error state (message,
 * stable code, per-field errors). Anything else is rethrown: Next's
 * redirects must pass, and real failures belong to the error page.
 */
export function actionErrorState(err: unknown, values?: Record<string, string>): ActionErrorState {
  if (!(err instanceof ApiError)) throw err;
  const details = err.details as { fields?: ActionErrorState['fields'] } | undefined;
  return { status: 'error', code: err.code, message: err.message, fields: details?.fields, values };
}
