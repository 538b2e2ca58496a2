'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { db } from '@/lib/server/db';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import { requestLogVerify } from '@/lib/server/transparency/verify-schedule';

// Admin-only, checked here again: a hidden button is not a permission.

/** Queues a verification of the whole transparency log (the worker's maintenance lane runs it). */
export const verifyLogNowAction = withOutageState(async function verifyLogNowAction(
  _prev: FormState,
  _form: FormData,
): Promise<FormState> {
  await requireUser('admin');
  try {
    await requestLogVerify(await db());
    revalidatePath('/status');
    return {
      status: 'ok',
      code: 'queued',
      message: 'Verification queued: the worker runs it next; reload this page to see the result.',
    };
  } catch (err) {
    return actionErrorState(err);
  }
});
