'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { Time } from '@/app/components/time';
import { requestSlackLinkAction, unlinkSlackAction } from './slack-actions';

export interface SlackLinkView {
  verified: { slackUserId: string; linkedAt: string | null } | null;
  pending: { slackUserId: string; expiresAt: string; expired: boolean } | null;
}

/**
 * The profile's Slack card: a link is requested here and confirmed by the
 * Slack member in the bot's direct message; until then it grants nothing.
 */
export function SlackLink({ link, now }: { link: SlackLinkView; now: string }) {
  const [state, request] = useActionState(requestSlackLinkAction, idle);
  const [unlinkState, unlink] = useActionState(unlinkSlackAction, idle);
  const { verified, pending } = link;
  return (
    <div className="space-y-4" data-testid="slack-link">
      <p className="text-sm text-slate-700" data-testid="slack-link-status">
        {verified ? (
          <>
            Linked to Slack member <code className="font-mono">{verified.slackUserId}</code>
            {verified.linkedAt && (
              <>
                {' '}
                (confirmed <Time value={verified.linkedAt} now={now} />)
              </>
            )}
            . Approve and reject buttons in Slack act as you.
          </>
        ) : (
          'Not linked: Slack buttons pressed by you are refused.'
        )}
      </p>
      {pending && (
        <p
          className="rounded bg-amber-50 px-3 py-2 text-sm text-amber-900"
          data-testid="slack-link-pending"
        >
          {pending.expired ? (
            <>
              The confirmation for <code className="font-mono">{pending.slackUserId}</code> was not
              pressed in time (or was never sent). Send it again below.
            </>
          ) : (
            <>
              Waiting for <code className="font-mono">{pending.slackUserId}</code> to press
              &ldquo;This is me&rdquo; in the Checkpoint bot&rsquo;s direct message (expires{' '}
              <Time value={pending.expiresAt} now={now} />
              ).
            </>
          )}
        </p>
      )}
      <form action={request} className="space-y-3" aria-label="Link Slack" noValidate>
        <Field
          label="Slack member ID"
          name="slackUserId"
          autoComplete="off"
          placeholder="U0123ABCD"
          defaultValue={state.values?.slackUserId ?? pending?.slackUserId ?? ''}
          hint="In Slack: your profile → ⋮ → Copy member ID. The bot sends that member a message to confirm."
          className="font-mono"
          state={state}
        />
        <FormMessage state={state} />
        <SubmitButton variant="secondary" pendingLabel="Sending…">
          {pending ? 'Send the confirmation again' : 'Send a confirmation in Slack'}
        </SubmitButton>
      </form>
      {(verified || pending) && (
        <form action={unlink} className="flex items-center gap-3" aria-label="Unlink Slack">
          <SubmitButton variant="danger" pendingLabel="Removing…">
            {verified ? 'Unlink Slack' : 'Cancel the request'}
          </SubmitButton>
          <FormMessage state={unlinkState} />
        </form>
      )}
      {!verified && !pending && unlinkState.status !== 'idle' && (
        <FormMessage state={unlinkState} />
      )}
    </div>
  );
}
