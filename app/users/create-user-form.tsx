'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { createUserAction } from './actions';
import { type RoleOption, RoleCheckboxes } from './role-checkboxes';

export function CreateUserForm({
  roles,
  minPassword,
}: {
  roles: RoleOption[];
  minPassword: number;
}) {
  const [state, action] = useActionState(createUserAction, idle);
  const checked = state.status === 'error' ? (state.values?.roles ?? '').split(',') : [];
  return (
    <form action={action} className="space-y-4" aria-label="Add a user" noValidate>
      <Field label="Email" name="email" type="email" autoComplete="off" required state={state} />
      <Field label="Name" name="name" autoComplete="off" hint="Optional." state={state} />
      <RoleCheckboxes
        // Re-mount after each answer so the boxes show what was submitted.
        key={`${state.status}-${state.values?.roles ?? ''}`}
        options={roles}
        checked={checked}
        state={state}
        idPrefix="create"
      />
      <Field
        label="Initial password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={minPassword}
        hint={`At least ${minPassword} characters. Share it over a safe channel; the user replaces it at the first sign-in.`}
        state={state}
      />
      <FormMessage state={state} />
      <SubmitButton pendingLabel="Adding…">Add user</SubmitButton>
    </form>
  );
}
