'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { idle } from '@/app/components/form-state';
import { verifyReceiptAction } from './receipt-actions';

/** The receipt's "Verify" button and its answer (checked on the server against the JWKS). */
export function VerifyReceipt({ ticketId }: { ticketId: string }) {
  const [state, action] = useActionState(verifyReceiptAction, idle);
  return (
    <form action={action} className="space-y-2">
      <input type="hidden" name="ticketId" value={ticketId} />
      <SubmitButton variant="secondary" pendingLabel="Verifying…">
        Verify
      </SubmitButton>
      {state.status !== 'idle' && (
        <p
          role="status"
          data-testid="receipt-verification"
          data-code={state.code}
          className={state.status === 'ok' ? 'text-sm text-emerald-800' : 'text-sm text-red-700'}
        >
          {state.status === 'ok' ? '✓ ' : '✗ '}
          {state.message}
        </p>
      )}
    </form>
  );
}
