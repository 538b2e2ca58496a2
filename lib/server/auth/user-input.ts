import 'server-only';
import { z } from 'zod';
import type { Role } from '@/lib/generated/prisma/enums';
import { AppError } from '@/lib/server/http/api-error';
import type { DetailCode, ErrorCode } from '@/lib/server/http/error-codes';
import { normalizeEmail } from './credentials';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password';
import { parseRoles } from './roles';

/** Validation of user input, each failure a field error with a stable code. */

/** Field errors carry stable codes; the form shows the message by the field. */
export type FieldErrors = Record<string, { code: ErrorCode | DetailCode; message: string }>;

export function validationError(fields: FieldErrors): AppError {
  const first = Object.values(fields)[0];
  return new AppError('request_invalid', first?.message ?? 'Invalid input.', { fields });
}

const emailSchema = z.email();

export function checkEmail(raw: unknown, fields: FieldErrors): string {
  const email = typeof raw === 'string' ? normalizeEmail(raw) : '';
  if (!emailSchema.safeParse(email).success || email.length > 320) {
    fields.email = { code: 'email_invalid', message: 'Enter a valid email address.' };
  }
  return email;
}

export function checkPassword(raw: unknown, fields: FieldErrors, field = 'password'): string {
  const password = typeof raw === 'string' ? raw : '';
  if (password.length < PASSWORD_MIN_LENGTH) {
    fields[field] = {
      code: 'password_too_short',
      message: `Use at least ${PASSWORD_MIN_LENGTH} characters.`,
    };
  } else if (password.length > PASSWORD_MAX_LENGTH) {
    fields[field] = {
      code: 'password_too_long',
      message: `Use at most ${PASSWORD_MAX_LENGTH} characters.`,
    };
  }
  return password;
}

export function checkRoles(raw: unknown, fields: FieldErrors): Role[] {
  const list = Array.isArray(raw) ? raw.map(String) : [];
  const roles = Array.isArray(raw) ? parseRoles(list) : null;
  if (!roles) fields.roles = { code: 'roles_invalid', message: 'Choose roles from the list.' };
  return roles ?? [];
}

export function checkName(raw: unknown, fields: FieldErrors): string | null {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name.length > 100) {
    fields.name = { code: 'name_too_long', message: 'Use at most 100 characters.' };
  }
  return name || null;
}
