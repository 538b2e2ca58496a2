import type { InputHTMLAttributes } from 'react';
import type { FormState } from './form-state';

export const inputClass =
  'block w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm shadow-sm ' +
  'placeholder:text-slate-400 focus:border-indigo-500 aria-[invalid=true]:border-red-500';

type Props = InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  name: string;
  hint?: string;
  state?: FormState;
};

/** A labelled input with its hint and inline error, wired for screen readers. */
export function Field({ label, name, hint, state, id, className = '', ...input }: Props) {
  const inputId = id ?? `field-${name}`;
  const error = state?.fields?.[name];
  const describedBy = [hint && `${inputId}-hint`, error && `${inputId}-error`].filter(Boolean);
  return (
    <div className="space-y-1">
      <label htmlFor={inputId} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <input
        id={inputId}
        name={name}
        defaultValue={state?.values?.[name]}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy.length ? describedBy.join(' ') : undefined}
        {...input}
        className={`${inputClass} ${className}`}
      />
      {hint && !error && (
        <p id={`${inputId}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
      {error && <FieldError id={`${inputId}-error`} error={error} />}
    </div>
  );
}

export function FieldError({
  id,
  error,
}: {
  id?: string;
  error: { code: string; message: string };
}) {
  return (
    <p id={id} className="text-xs font-medium text-red-700" data-code={error.code}>
      {error.message}
    </p>
  );
}
