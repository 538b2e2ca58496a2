'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { db } from '@/lib/server/db';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import { forgetActiveSigningKey } from '@/lib/server/signing/jws';
import { rotateSigningKey } from '@/lib/server/signing/keys';

// Admin-only, checked here again: a hidden button is not a permission.

/** A new key signs from now on; the old one stays published for verification. */
export const rotateSigningKeyAction = withOutageState(async function rotateSigningKeyAction(
  _prev: FormState,
  _form: FormData,
): Promise<FormState> {
  const admin = await requireUser('admin');
  try {
    const { kid } = await rotateSigningKey(await db(), { kind: 'user', id: admin.id });
    // Other processes pick the new key up within seconds (jws.ts : ACTIVE_KEY_TTL_MS).
    forgetActiveSigningKey();
    revalidatePath('/settings/signing-keys');
    return { status: 'ok', code: 'rotated', message: `Rotated: ${kid} signs from now on.` };
  } catch (err) {
    return actionErrorState(err);
  }
});
