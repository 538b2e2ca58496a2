'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { type RegisterWitnessState, registerWitnessAction, removeWitnessAction } from './actions';

export function RegisterWitness() {
  const [state, action] = useActionState<RegisterWitnessState, FormData>(
    registerWitnessAction,
    idle,
  );
  return (
    <form action={action} className="space-y-3" data-testid="register-witness">
      <Field
        label="Witness URL"
        name="url"
        type="url"
        required
        placeholder="https://witness.example.com/tree-heads"
        hint="Receives every signed tree head (POST, signed like webhooks)."
        state={state}
      />
      <SubmitButton pendingLabel="Registering…">Register</SubmitButton>
      <FormMessage state={state} />
      {state.secret ? (
        <p className="text-sm">
          Signing secret:{' '}
          <code className="break-all font-mono text-xs" data-testid="witness-secret">
            {state.secret}
          </code>
        </p>
      ) : null}
    </form>
  );
}

export function RemoveWitness({ id }: { id: string }) {
  const [state, action] = useActionState(removeWitnessAction, idle);
  return (
    <form action={action}>
      <input type="hidden" name="id" value={id} />
      <SubmitButton variant="secondary" pendingLabel="Removing…">
        Remove
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
