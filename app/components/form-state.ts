/** What a form's server action answers, for inline messages. */
export type FormState = {
  status: 'idle' | 'ok' | 'error';
  /** Stable code of the error (or of the success), for tests and styling. */
  code?: string;
  message?: string;
  /** Per-field errors, keyed by input name. */
  fields?: Record<string, { code: string; message: string }>;
  /** Values to put back in the form after an error (never passwords). */
  values?: Record<string, string>;
};

export const idle: FormState = { status: 'idle' };
