'use client';

import { useActionState, useState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { buttonClass } from '@/app/components/button-class';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { setArchivedAction } from '../actions';

/** Archive (with a confirmation step) or restore a host. */
export function ArchiveForm({ hostId, archived }: { hostId: string; archived: boolean }) {
  const [state, action] = useActionState(setArchivedAction, idle);
  const [confirming, setConfirming] = useState(false);
  return (
    <form action={action} className="space-y-3" aria-label="Archive host">
      <input type="hidden" name="hostId" value={hostId} />
      <input type="hidden" name="archive" value={archived ? 'false' : 'true'} />
      <p className="text-sm text-slate-600">
        {archived
          ? 'This host is archived: its keys are refused. Restoring makes its unrevoked keys work again.'
          : 'Archiving refuses every key of this host at once. Its tickets and records stay.'}
      </p>
      <FormMessage state={state} />
      {archived ? (
        <SubmitButton variant="secondary" pendingLabel="Restoring…">
          Restore host
        </SubmitButton>
      ) : confirming ? (
        <div className="flex gap-2">
          <SubmitButton variant="danger" pendingLabel="Archiving…">
            Archive now
          </SubmitButton>
          <button
            type="button"
            className={buttonClass('ghost')}
            onClick={() => setConfirming(false)}
          >
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" className={buttonClass('danger')} onClick={() => setConfirming(true)}>
          Archive host…
        </button>
      )}
    </form>
  );
}
