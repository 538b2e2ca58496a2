'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { changePasswordAction, linkSlackAction } from './actions';

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

export function SlackForm({ current }: { current: string | null }) {
  const [state, action] = useActionState(linkSlackAction, {
    ...idle,
    values: { slackUserId: current ?? '' },
  });
  return (
    <form action={action} className="space-y-3" aria-label="Slack" noValidate>
      <Field
        label="Slack member ID"
        name="slackUserId"
        autoComplete="off"
        placeholder="U0123ABCD"
        hint="In Slack: your profile → ⋮ → Copy member ID. Leave empty to unlink."
        className="font-mono"
        state={state}
      />
      <FormMessage state={state} />
      <SubmitButton variant="secondary" pendingLabel="Saving…">
        Save
      </SubmitButton>
    </form>
  );
}
