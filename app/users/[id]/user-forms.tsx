'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { resetPasswordAction, setDisabledAction, updateRolesAction } from '../actions';
import { type RoleOption, RoleCheckboxes } from '../role-checkboxes';

export function RolesForm({
  userId,
  roles,
  options,
}: {
  userId: string;
  roles: string[];
  options: RoleOption[];
}) {
  const [state, action] = useActionState(updateRolesAction, idle);
  return (
    <form action={action} className="space-y-4" aria-label="Roles">
      <input type="hidden" name="userId" value={userId} />
      <RoleCheckboxes
        key={roles.join(',')}
        options={options}
        checked={roles}
        state={state}
        idPrefix="edit"
      />
      <FormMessage state={state} />
      <SubmitButton variant="secondary" pendingLabel="Saving…">
        Save roles
      </SubmitButton>
    </form>
  );
}

export function StatusForm({
  userId,
  disabled,
  isSelf,
}: {
  userId: string;
  disabled: boolean;
  isSelf: boolean;
}) {
  const [state, action] = useActionState(setDisabledAction, idle);
  return (
    <form action={action} className="space-y-3" aria-label="Account status">
      <input type="hidden" name="userId" value={userId} />
      <input type="hidden" name="disabled" value={disabled ? 'false' : 'true'} />
      <p className="text-sm text-slate-600">
        {disabled
          ? 'This account cannot sign in, and its open sessions do not work.'
          : isSelf
            ? 'You cannot disable your own account.'
            : 'Disabling stops this user at once, including open sessions.'}
      </p>
      <FormMessage state={state} />
      <SubmitButton variant={disabled ? 'secondary' : 'danger'} disabled={!disabled && isSelf}>
        {disabled ? 'Enable account' : 'Disable account'}
      </SubmitButton>
    </form>
  );
}

export function ResetPasswordForm({
  userId,
  minPassword,
}: {
  userId: string;
  minPassword: number;
}) {
  const [state, action] = useActionState(resetPasswordAction, idle);
  return (
    <form action={action} className="space-y-3" aria-label="Reset password" noValidate>
      <input type="hidden" name="userId" value={userId} />
      <Field
        label="New password"
        name="password"
        id="reset-password"
        type="password"
        autoComplete="new-password"
        minLength={minPassword}
        required
        hint={`At least ${minPassword} characters. Ends the user's sessions; they replace it at the next sign-in.`}
        state={state}
      />
      <FormMessage state={state} />
      <SubmitButton variant="secondary" pendingLabel="Setting…">
        Set password
      </SubmitButton>
    </form>
  );
}
