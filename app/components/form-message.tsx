import type { FormState } from './form-state';

/**
 * The result line of a form: an error (role="alert", announced at once)
 * or a confirmation (role="status"). Renders an empty live region when
 * idle so the announcement is not missed.
 */
export function FormMessage({ state, id }: { state: FormState; id?: string }) {
  if (state.status === 'error' && state.message) {
    // Field errors sit next to their fields; up here only say where to look.
    const fieldCount = Object.keys(state.fields ?? {}).length;
    const text =
      fieldCount === 0
        ? state.message
        : `Check the ${fieldCount === 1 ? 'field' : 'fields'} marked in red.`;
    return (
      <div
        id={id}
        role="alert"
        data-code={state.code}
        className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
      >
        {text}
      </div>
    );
  }
  if (state.status === 'ok' && state.message) {
    return (
      <div
        id={id}
        role="status"
        data-code={state.code}
        className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-800"
      >
        {state.message}
      </div>
    );
  }
  return <div id={id} role="status" className="sr-only" />;
}
