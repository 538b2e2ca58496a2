'use client';

import { useActionState } from 'react';
import { SubmitButton } from '@/app/components/button';
import { Field } from '@/app/components/field';
import { FormMessage } from '@/app/components/form-message';
import { idle } from '@/app/components/form-state';
import { signInWithPassword } from './actions';

export function SignInForm({ next, initialError }: { next: string; initialError?: string }) {
  const [state, action] = useActionState(
    signInWithPassword,
    initialError ? { status: 'error' as const, code: 'sso', message: initialError } : idle,
  );
  return (
    <form action={action} className="space-y-4" noValidate>
      <input type="hidden" name="next" value={next} />
      <FormMessage state={state} id="sign-in-message" />
      <Field
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        required
        autoFocus
        state={state}
      />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        state={state}
      />
      <SubmitButton className="w-full" pendingLabel="Signing in…">
        Sign in
      </SubmitButton>
    </form>
  );
}
