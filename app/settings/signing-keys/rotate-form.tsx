'use client';

import { useActionState, useEffect, useState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { buttonClass } from '@/app/components/button-class';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { rotateSigningKeyAction } from './actions';

/** Rotate, in two steps: the first press only asks. */
export function RotateSigningKey({ fromEnv }: { fromEnv: boolean }) {
  const [state, action] = useActionState(rotateSigningKeyAction, idle);
  const [asking, setAsking] = useState(false);
  // An answer (rotated, or refused) closes the question; the message says which.
  useEffect(() => {
    if (state !== idle) setAsking(false);
  }, [state]);
  if (fromEnv) {
    return (
      <p className="text-sm text-slate-600" data-testid="signing-key-from-env">
        <code className="font-mono">SIGNING_KEY</code> is set: the environment decides which key
        signs. To rotate, put a new key in <code className="font-mono">SIGNING_KEY</code> and
        restart every process.
      </p>
    );
  }
  return (
    <form action={action} className="space-y-3">
      {asking ? (
        <div className="space-y-2 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm">
          <p>
            A new key will sign every receipt and tree head from now on. The current key is retired,
            not deleted: it stays published, so what it signed still verifies.
          </p>
          <div className="flex gap-2">
            <SubmitButton variant="danger" pendingLabel="Rotating…">
              Rotate now
            </SubmitButton>
            <button
              type="button"
              className={buttonClass('secondary')}
              onClick={() => setAsking(false)}
            >
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className={buttonClass('secondary')} onClick={() => setAsking(true)}>
          Rotate…
        </button>
      )}
      <FormMessage state={state} />
    </form>
  );
}
