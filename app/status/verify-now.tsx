'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { verifyLogNowAction } from './log-actions';

/** The admin's "Verify now" on /status. */
export function VerifyLogNow() {
  const [state, action] = useActionState(verifyLogNowAction, idle);
  return (
    <form action={action} className="space-y-2" data-testid="verify-log-now">
      <SubmitButton variant="secondary" pendingLabel="Queuing…">
        Verify now
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
