'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field, FieldError, inputClass } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { type FormState, idle } from '@/app/components/form-state';
import { createHostAction, updateHostAction } from './actions';

/** What the form shows for a host (timeouts already in human form). */
export type HostFormValues = {
  hostId?: string;
  name: string;
  description: string;
  defaultTimeout: string;
  maxTimeout: string;
  redactionPaths: string;
  builtIn: boolean;
};

const TIMEOUT_HINT = 'e.g. 90s, 15m, 2h, 1d or 1h 30m (a bare number is minutes); 10s to 7d.';

/** Registers a host (no hostId) or edits one. */
/** Example paths and what `$target` is per interception point (lib/server/hosts/redaction-coverage.ts). */
export type RedactionHelp = { examples: string[]; targets: string };

export function HostForm({
  initial,
  redactionHelp,
}: {
  initial: HostFormValues;
  redactionHelp: RedactionHelp;
}) {
  const editing = Boolean(initial.hostId);
  const [state, action] = useActionState(editing ? updateHostAction : createHostAction, idle);
  // After an error, show what was typed; otherwise the saved values.
  const shown = (name: keyof HostFormValues) =>
    state.status === 'error' ? (state.values?.[name] ?? '') : String(initial[name]);
  const withValues: FormState = { ...state, values: undefined };
  const prefix = editing ? 'edit' : 'new';
  return (
    <form
      action={action}
      className="space-y-4"
      aria-label={editing ? 'Host settings' : 'Register a host'}
      noValidate
      // Re-mount after each answer so defaults show what was submitted or saved.
      key={`${state.status}-${JSON.stringify(state.values ?? {})}-${JSON.stringify(initial)}`}
    >
      {initial.hostId && <input type="hidden" name="hostId" value={initial.hostId} />}
      {initial.builtIn ? (
        <div className="space-y-1 text-sm">
          <span className="block font-medium text-slate-800">Name</span>
          <span className="block font-mono">{initial.name}</span>
          <p className="text-xs text-slate-500">The built-in host keeps its name.</p>
        </div>
      ) : (
        <Field
          label="Name"
          name="name"
          id={`${prefix}-name`}
          required
          autoComplete="off"
          defaultValue={shown('name')}
          state={withValues}
        />
      )}
      <TextArea
        label="Description"
        name="description"
        id={`${prefix}-description`}
        rows={2}
        hint="Optional: what this host is and who runs it."
        defaultValue={shown('description')}
        state={state}
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Default approval timeout"
          name="defaultTimeout"
          id={`${prefix}-defaultTimeout`}
          autoComplete="off"
          defaultValue={shown('defaultTimeout')}
          hint={`When a request names none. ${TIMEOUT_HINT}`}
          state={withValues}
        />
        <Field
          label="Maximum timeout"
          name="maxTimeout"
          id={`${prefix}-maxTimeout`}
          autoComplete="off"
          defaultValue={shown('maxTimeout')}
          hint="The longest a request may ask for."
          state={withValues}
        />
      </div>
      <TextArea
        label="Redaction paths"
        name="redactionPaths"
        id={`${prefix}-redactionPaths`}
        rows={4}
        mono
        placeholder={redactionHelp.examples.join('\n')}
        hint={`One $target path per line (§5.2): .name, [0] or ["name"], with names of A-Z, a-z, 0-9, _ and - only. $target is ${redactionHelp.targets}. These values are removed before a ticket is stored; reviewers see them as redacted.`}
        defaultValue={shown('redactionPaths')}
        state={state}
      />
      <FormMessage state={state} />
      <SubmitButton pendingLabel={editing ? 'Saving…' : 'Registering…'}>
        {editing ? 'Save settings' : 'Register host'}
      </SubmitButton>
    </form>
  );
}

function TextArea({
  label,
  name,
  id,
  hint,
  state,
  mono,
  ...rest
}: {
  label: string;
  name: string;
  id: string;
  hint?: string;
  state: FormState;
  mono?: boolean;
  rows: number;
  defaultValue: string;
  placeholder?: string;
}) {
  const error = state.fields?.[name];
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <textarea
        id={id}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        spellCheck={false}
        className={`${inputClass} ${mono ? 'font-mono text-xs' : ''}`}
        {...rest}
      />
      {hint && !error && (
        <p id={`${id}-hint`} className="text-xs text-slate-500">
          {hint}
        </p>
      )}
      {error && <FieldError id={`${id}-error`} error={error} />}
    </div>
  );
}
