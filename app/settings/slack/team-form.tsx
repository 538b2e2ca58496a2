'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { saveSlackTeamAction } from './actions';

/** The Slack workspace id that interactions must carry. */
export function SlackTeamForm({ teamId }: { teamId: string | null }) {
  const [state, action] = useActionState(saveSlackTeamAction, idle);
  return (
    <form action={action} aria-label="Slack workspace" className="space-y-3" noValidate>
      <Field
        label="Workspace id"
        name="teamId"
        id="slack-teamId"
        autoComplete="off"
        placeholder="T0123ABCD"
        className="font-mono"
        defaultValue={state.values?.teamId ?? teamId ?? ''}
        hint="Button presses from any other workspace are refused. Blank: learned from the bot token (auth.test)."
        state={{ ...state, values: undefined }}
      />
      <div className="flex items-center gap-3">
        <SubmitButton pendingLabel="Saving…">Save</SubmitButton>
        <FormMessage state={state} />
      </div>
    </form>
  );
}
