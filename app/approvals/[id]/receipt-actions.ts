'use server';

import type { FormState } from '@/app/components/form-state';
import { hasAnyRole, Role } from '@/lib/server/auth/roles';
import { getCurrentUser } from '@/lib/server/auth/session';
import { withOutageState } from '@/lib/server/http/action-state';
import { isUuid } from '@/lib/server/http/uuid';
import { publicJwks } from '@/lib/server/signing/jws';
import { receiptForTicket, verifyReceipt } from '@/lib/server/receipts';

/**
 * "Verify" on the ticket page: checks the stored receipt exactly as an
 * outside verifier would (docs/receipts.md), against the published JWKS,
 * and says which key signed it and whether that key is still the active one.
 */
export const verifyReceiptAction = withOutageState(async function verifyReceiptAction(
  _prev: FormState,
  form: FormData,
): Promise<FormState> {
  const user = await getCurrentUser();
  if (!user || !hasAnyRole(user.roles, [Role.admin, Role.reviewer, Role.auditor])) {
    return { status: 'error', code: 'forbidden', message: 'Sign in to verify receipts.' };
  }
  const ticketId = String(form.get('ticketId') ?? '');
  const jws = isUuid(ticketId) ? await receiptForTicket(ticketId) : null;
  if (!jws) return { status: 'error', code: 'not_found', message: 'This ticket has no receipt.' };
  const jwks = await publicJwks();
  const check = await verifyReceipt(jws, { ticketId, jwks });
  if (!check.ok) return { status: 'error', code: check.code, message: check.message };
  // publicJwks lists the active key first (signing/publish.ts).
  const active = jwks.keys[0]?.kid === check.kid;
  return {
    status: 'ok',
    code: 'receipt_verified',
    message: `Signature verified with key ${check.kid} (${active ? 'the active key' : 'a retired key, still published'}); the receipt is about this ticket.`,
  };
});
