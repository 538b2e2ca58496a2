'use client';

import { useActionState, useState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { buttonClass } from '@/app/components/button-class';
import { Field, inputClass } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { type IssueKeyState, issueKeyAction, revokeKeyAction } from '../actions';

/** Names a new key; its answer shows the key once, with a copy button. */
export function IssueKeyForm({ hostId, disabled }: { hostId: string; disabled: boolean }) {
  const [state, action] = useActionState<IssueKeyState, FormData>(issueKeyAction, idle);
  return (
    <div className="space-y-4">
      {state.key && <NewKey name={state.keyName ?? ''} value={state.key} />}
      <form
        action={action}
        className="flex flex-wrap items-end gap-2"
        aria-label="Create an API key"
        noValidate
        key={state.key ?? state.status}
      >
        <input type="hidden" name="hostId" value={hostId} />
        <div className="min-w-48 flex-1">
          <Field
            label="Key name"
            name="name"
            id="api-key-name"
            autoComplete="off"
            placeholder="e.g. production"
            required
            disabled={disabled}
            state={state.status === 'error' ? state : undefined}
          />
        </div>
        <SubmitButton pendingLabel="Creating…" disabled={disabled}>
          Create key
        </SubmitButton>
      </form>
      {state.status === 'error' && <FormMessage state={state} />}
    </div>
  );
}

/** The one and only display of a key. */
function NewKey({ name, value }: { name: string; value: string }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      // No clipboard permission (plain http, old browser): the text stays selectable.
      setCopied('failed');
    }
  }
  return (
    <section
      aria-label="New API key"
      className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3"
    >
      <p className="text-sm font-medium text-amber-900">
        Copy the key “{name}” now: this is the only time it is shown.
      </p>
      <p className="text-xs text-amber-800">
        Only a hash is stored; if it is lost, create a new key and revoke this one. Send it as{' '}
        <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      <div className="flex gap-2">
        <input
          readOnly
          value={value}
          aria-label="API key"
          data-testid="new-api-key"
          onFocus={(e) => e.currentTarget.select()}
          className={`${inputClass} font-mono text-xs`}
        />
        <button type="button" onClick={copy} className={buttonClass('secondary')}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p role="status" className="text-xs text-amber-800">
        {copied === 'failed' ? 'Copying is not allowed here: select the key and copy it.' : ''}
      </p>
    </section>
  );
}

/** Revoke with a confirmation step: the first click only asks. */
export function RevokeKeyButton({ apiKeyId, name }: { apiKeyId: string; name: string }) {
  const [confirming, setConfirming] = useState(false);
  const [state, action] = useActionState(revokeKeyAction, idle);
  if (!confirming) {
    return (
      <button
        type="button"
        className={buttonClass('danger', 'px-2 py-1 text-xs')}
        onClick={() => setConfirming(true)}
        aria-label={`Revoke ${name}`}
      >
        Revoke
      </button>
    );
  }
  return (
    <form action={action} className="space-y-1" aria-label={`Confirm revoking ${name}`}>
      <input type="hidden" name="apiKeyId" value={apiKeyId} />
      <p className="text-xs text-slate-700">Hosts using “{name}” are refused at once.</p>
      <div className="flex justify-end gap-1">
        <SubmitButton variant="danger" pendingLabel="Revoking…">
          Revoke key
        </SubmitButton>
        <button type="button" className={buttonClass('ghost')} onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
      {state.status === 'error' && <FormMessage state={state} />}
    </form>
  );
}
