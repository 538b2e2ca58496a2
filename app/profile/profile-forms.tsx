'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { changePasswordAction } from './actions';

export function ChangePasswordForm({
  hasPassword,
  minPassword,
}: {
  hasPassword: boolean;
  minPassword: number;
}) {
  const [state, action] = useActionState(changePasswordAction, idle);
  return (
    <form action={action} className="space-y-3" aria-label="Change password" noValidate>
      {hasPassword && (
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          state={state}
        />
      )}
      <Field
        label="New password"
        name="newPassword"
        type="password"
        autoComplete="new-password"
        minLength={minPassword}
        required
        hint={`At least ${minPassword} characters.`}
        state={state}
      />
      <Field
        label="New password, again"
        name="confirmPassword"
        type="password"
        autoComplete="new-password"
        required
        state={state}
      />
      <FormMessage state={state} />
      <SubmitButton variant="secondary" pendingLabel="Changing…">
        Change password
      </SubmitButton>
    </form>
  );
}
