'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { requireUser } from '@/lib/server/auth/session';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import {
  createUser,
  resetUserPassword,
  setUserDisabled,
  updateUserRoles,
} from '@/lib/server/users';

// Each action re-checks the admin role here, and the service checks again
// against the database: a hidden button is not a permission.

export const createUserAction = withOutageState(async function createUserAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireUser('admin');
  const values = { email: String(form.get('email') ?? ''), name: String(form.get('name') ?? '') };
  try {
    const user = await createUser(actor, {
      email: form.get('email'),
      name: form.get('name'),
      roles: form.getAll('roles').map(String),
      password: form.get('password'),
    });
    revalidatePath('/users');
    return { status: 'ok', code: 'user_created', message: `Added ${user.email}.` };
  } catch (err) {
    return actionErrorState(err, { ...values, roles: form.getAll('roles').join(',') });
  }
});

export const updateRolesAction = withOutageState(async function updateRolesAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireUser('admin');
  const userId = String(form.get('userId') ?? '');
  try {
    await updateUserRoles(actor, userId, form.getAll('roles').map(String));
    revalidatePath('/users');
    return { status: 'ok', code: 'roles_saved', message: 'Roles saved.' };
  } catch (err) {
    return actionErrorState(err);
  }
});

export const setDisabledAction = withOutageState(async function setDisabledAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireUser('admin');
  const userId = String(form.get('userId') ?? '');
  const disabled = form.get('disabled') === 'true';
  try {
    await setUserDisabled(actor, userId, disabled);
    revalidatePath('/users');
    return {
      status: 'ok',
      code: disabled ? 'user_disabled' : 'user_enabled',
      message: disabled
        ? 'The account is disabled; its sessions stop working now.'
        : 'The account is enabled.',
    };
  } catch (err) {
    return actionErrorState(err);
  }
});

export const resetPasswordAction = withOutageState(async function resetPasswordAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const actor = await requireUser('admin');
  const userId = String(form.get('userId') ?? '');
  try {
    await resetUserPassword(actor, userId, form.get('password'));
    return {
      status: 'ok',
      code: 'password_reset',
      message:
        'Password set and their sessions ended. Tell the user over a safe channel; they choose their own at the next sign-in.',
    };
  } catch (err) {
    return actionErrorState(err);
  }
});
