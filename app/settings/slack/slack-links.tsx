'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { Time } from '@/app/components/time';
import { revokeSlackLinkAction } from './actions';

export interface SlackLinkItem {
  userId: string;
  who: string;
  slackUserId: string;
  state: 'verified' | 'pending' | 'expired';
  verifiedAt: string | null;
  expiresAt: string | null;
}

const STATE_WORDS = {
  verified: 'confirmed',
  pending: 'waiting for confirmation',
  expired: 'not confirmed (expired)',
};

function Revoke({ item }: { item: SlackLinkItem }) {
  const [state, action] = useActionState(revokeSlackLinkAction, idle);
  return (
    <form
      action={action}
      className="flex items-center gap-2"
      aria-label={`Revoke Slack link of ${item.who}`}
    >
      <input type="hidden" name="userId" value={item.userId} />
      <SubmitButton variant="danger" pendingLabel="Revoking…">
        Revoke
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}

/** Admins: every Slack link, confirmed or pending, each revocable. */
export function SlackLinks({ items, now }: { items: SlackLinkItem[]; now: string }) {
  if (items.length === 0) return <p className="text-sm text-slate-500">No Slack links yet.</p>;
  return (
    <table className="w-full text-left text-sm" aria-label="Slack links">
      <thead className="text-xs text-slate-500">
        <tr>
          <th className="py-1 font-medium">User</th>
          <th className="py-1 font-medium">Slack member</th>
          <th className="py-1 font-medium">State</th>
          <th className="py-1 font-medium">Confirmed</th>
          <th className="py-1" />
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {items.map((l) => (
          <tr key={`${l.userId}-${l.state}`} data-state={l.state}>
            <td className="py-2">{l.who}</td>
            <td className="py-2 font-mono">{l.slackUserId}</td>
            <td className="py-2">{STATE_WORDS[l.state]}</td>
            <td className="py-2">{l.verifiedAt ? <Time value={l.verifiedAt} now={now} /> : '—'}</td>
            <td className="py-2 text-right">
              <Revoke item={l} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
