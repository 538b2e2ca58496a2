'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { db } from '@/lib/server/db';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import { registerWitness, removeWitness } from '@/lib/server/transparency/witnesses';

// Admin-only, checked here again: a hidden button is not a permission.

export type RegisterWitnessState = FormState & { secret?: string };

/** Registers a witness; its signing secret is in the answer, once. */
export const registerWitnessAction = withOutageState(async function registerWitnessAction(
  _prev: RegisterWitnessState,
  form: FormData,
): Promise<RegisterWitnessState> {
  const admin = await requireUser('admin');
  const url = String(form.get('url') ?? '');
  try {
    const w = await registerWitness(await db(), admin.id, url);
    revalidatePath('/settings/witnesses');
    return {
      status: 'ok',
      code: 'registered',
      message: `Registered ${w.url}. Copy its signing secret now: it is not shown again.`,
      secret: w.secret,
    };
  } catch (err) {
    return actionErrorState(err, { url }, { fieldOf: () => 'url' });
  }
});

export const removeWitnessAction = withOutageState(async function removeWitnessAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const admin = await requireUser('admin');
  try {
    await removeWitness(await db(), admin.id, String(form.get('id') ?? ''));
    revalidatePath('/settings/witnesses');
    return { status: 'ok', code: 'removed', message: 'Witness removed.' };
  } catch (err) {
    return actionErrorState(err);
  }
});
