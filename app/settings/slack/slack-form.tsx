'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { saveSlackSettingsAction } from './actions';

/** Channel + incoming-webhook URL, for the global default (no hostId) or one host. */
export function SlackTargetForm({
  hostId,
  channel,
  webhookUrlMasked,
  label,
}: {
  hostId?: string;
  channel: string | null;
  webhookUrlMasked: string | null;
  label: string;
}) {
  const [state, action] = useActionState(saveSlackSettingsAction, idle);
  const prefix = hostId ? `host-${hostId}` : 'global';
  const shownChannel = state.status === 'error' ? (state.values?.channel ?? '') : (channel ?? '');
  return (
    <form
      action={action}
      aria-label={label}
      className="space-y-3"
      noValidate
      key={`${state.status}-${channel}`}
    >
      {hostId && <input type="hidden" name="hostId" value={hostId} />}
      <div className="grid gap-3 sm:grid-cols-2">
        <Field
          label="Channel (bot token)"
          name="channel"
          id={`${prefix}-channel`}
          autoComplete="off"
          placeholder="#approvals or C0123ABCD"
          defaultValue={shownChannel}
          hint="Messages with Approve and Reject buttons, updated when the ticket is decided."
          state={{ ...state, values: undefined }}
        />
        <Field
          label="Incoming-webhook URL"
          name="webhookUrl"
          id={`${prefix}-webhookUrl`}
          type="url"
          autoComplete="off"
          placeholder={
            webhookUrlMasked
              ? `Set (${webhookUrlMasked}); blank keeps it`
              : 'https://hooks.slack.com/services/…'
          }
          hint="No buttons, and a webhook cannot edit its message: the outcome is posted as a follow-up."
          state={{ ...state, values: undefined }}
        />
      </div>
      {webhookUrlMasked && (
        <label className="flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" name="clearWebhook" /> Remove the stored webhook URL
        </label>
      )}
      <div className="flex items-center gap-3">
        <SubmitButton pendingLabel="Saving…">Save</SubmitButton>
        <FormMessage state={state} />
      </div>
    </form>
  );
}
