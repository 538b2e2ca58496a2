'use client';

import { useActionState, useState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { buttonClass } from '@/app/components/button-class';
import { Field, inputClass } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { type FormState, idle } from '@/app/components/form-state';
import {
  deleteWebhookAction,
  redeliverAction,
  rotateSecretAction,
  saveWebhookAction,
  selfTestAction,
  setEnabledAction,
  type WebhookFormState,
} from './actions';

type Kind = 'callback' | 'resolver';

/** URL + timeout; a new webhook's signing secret is shown once in the answer. */
export function WebhookForm({
  hostId,
  kind,
  url,
  timeoutMs,
  maxTimeoutMs,
  urlRule,
}: {
  hostId: string;
  kind: Kind;
  url?: string;
  timeoutMs?: number;
  maxTimeoutMs: number;
  /** What URLs this deployment accepts (describeUrlRule). */
  urlRule: string;
}) {
  const [state, action] = useActionState<WebhookFormState, FormData>(saveWebhookAction, idle);
  return (
    <div className="space-y-3">
      {state.secret && <NewSecret value={state.secret} />}
      <form action={action} className="space-y-3" aria-label={`${kind} webhook`} noValidate>
        <input type="hidden" name="hostId" value={hostId} />
        <input type="hidden" name="kind" value={kind} />
        <Field
          label={kind === 'callback' ? 'Callback URL' : 'Resolver URL'}
          name="url"
          id={`${kind}-url`}
          type="url"
          required
          autoComplete="off"
          placeholder="https://agents.example.com/hooks/checkpoint"
          defaultValue={state.values?.url ?? url}
          state={state.status === 'error' ? state : undefined}
          hint={urlRule}
        />
        <Field
          label="Timeout (ms)"
          name="timeoutMs"
          id={`${kind}-timeout`}
          inputMode="numeric"
          defaultValue={state.values?.timeoutMs ?? String(timeoutMs ?? maxTimeoutMs)}
          hint={`At most ${maxTimeoutMs} ms.`}
        />
        <SubmitButton pendingLabel={kind === 'resolver' ? 'Saving and self-testing…' : 'Saving…'}>
          {url ? 'Save' : 'Register'}
        </SubmitButton>
      </form>
      <FormMessage state={state} />
    </div>
  );
}

/** The only display of a signing secret. */
function NewSecret({ value }: { value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <section
      aria-label="New signing secret"
      className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3"
    >
      <p className="text-sm font-medium text-amber-900">
        Copy the signing secret now: this is the only time it is shown.
      </p>
      <p className="text-xs text-amber-800">
        Verify <code>webhook-signature</code> with it (Standard Webhooks). It is stored encrypted.
      </p>
      <div className="flex gap-2">
        <input
          readOnly
          value={value}
          aria-label="Signing secret"
          data-testid="new-webhook-secret"
          onFocus={(e) => e.currentTarget.select()}
          className={`${inputClass} font-mono text-xs`}
        />
        <button
          type="button"
          className={buttonClass('secondary')}
          onClick={() =>
            navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => {},
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </section>
  );
}

export function RotateSecretForm({ hostId, kind }: { hostId: string; kind: Kind }) {
  const [state, action] = useActionState<WebhookFormState, FormData>(rotateSecretAction, idle);
  return (
    <div className="space-y-2">
      {state.secret && <NewSecret value={state.secret} />}
      <form action={action} className="flex flex-wrap items-end gap-2" aria-label="Rotate secret">
        <input type="hidden" name="hostId" value={hostId} />
        <input type="hidden" name="kind" value={kind} />
        <label className="text-sm text-slate-700">
          Old secret keeps signing for{' '}
          <select
            name="overlapHours"
            defaultValue="24"
            className="rounded-md border border-slate-300 px-1.5 py-1 text-sm"
          >
            <option value="0">0 h (stop now)</option>
            <option value="1">1 h</option>
            <option value="24">24 h</option>
            <option value="168">7 days</option>
          </select>
        </label>
        <SubmitButton variant="secondary" pendingLabel="Rotating…">
          Rotate secret
        </SubmitButton>
      </form>
      {state.status === 'error' && <FormMessage state={state} />}
    </div>
  );
}

export function SmallActionForm({
  action: serverAction,
  fields,
  label,
  pendingLabel,
  variant = 'secondary',
}: {
  action: (prev: FormState, form: FormData) => Promise<FormState>;
  fields: Record<string, string>;
  label: string;
  pendingLabel: string;
  variant?: 'primary' | 'secondary' | 'danger';
}) {
  const [state, action] = useActionState<FormState, FormData>(serverAction, idle);
  return (
    <form action={action} className="inline-flex items-center gap-2">
      {Object.entries(fields).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <SubmitButton variant={variant} pendingLabel={pendingLabel}>
        {label}
      </SubmitButton>
      {state.status !== 'idle' && (
        <span
          role={state.status === 'error' ? 'alert' : 'status'}
          data-code={state.code}
          className={`text-xs ${state.status === 'error' ? 'text-red-700' : 'text-emerald-700'}`}
        >
          {state.message}
        </span>
      )}
    </form>
  );
}

export function SelfTestButton({ hostId }: { hostId: string }) {
  return (
    <SmallActionForm
      action={selfTestAction}
      fields={{ hostId }}
      label="Run self-test"
      pendingLabel="Testing…"
    />
  );
}

export function EnableButton({
  hostId,
  kind,
  enabled,
}: {
  hostId: string;
  kind: Kind;
  enabled: boolean;
}) {
  return (
    <SmallActionForm
      action={setEnabledAction}
      fields={{ hostId, kind, enable: String(!enabled) }}
      label={enabled ? 'Disable' : 'Enable'}
      pendingLabel={enabled ? 'Disabling…' : 'Enabling…'}
    />
  );
}

export function DeleteButton({ hostId, kind }: { hostId: string; kind: Kind }) {
  return (
    <SmallActionForm
      action={deleteWebhookAction}
      fields={{ hostId, kind }}
      label="Remove"
      pendingLabel="Removing…"
      variant="danger"
    />
  );
}

export function RedeliverButton({ hostId, deliveryId }: { hostId: string; deliveryId: string }) {
  return (
    <SmallActionForm
      action={redeliverAction}
      fields={{ hostId, deliveryId }}
      label="Redeliver"
      pendingLabel="Queuing…"
    />
  );
}
