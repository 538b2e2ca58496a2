'use server';

import { revalidatePath } from 'next/cache';
import type { FormState } from '@/app/components/form-state';
import { formatAbsolute } from '@/app/components/time-format';
import { parseJsonText, ValueDomainError } from '@checkpoint/agent-hooks';
import { DecisionError, decideTicket } from '@/lib/server/approvals/decide';
import { actionErrorState, withOutageState } from '@/lib/server/http/action-state';
import type { AppError } from '@/lib/server/http/api-error';
import { AREAS, hasAnyRole } from '@/lib/server/auth/roles';
import { getActiveSession, getCurrentUser } from '@/lib/server/auth/session';

/** What the decision forms answer; `decidedAt` lets the panel say "already decided at T". */
export type DecisionState = FormState;

const MESSAGES: Record<string, string> = {
  not_found: 'This ticket no longer exists.',
  identity_stale:
    'The request changed since this page was loaded (its context identity differs). Nothing was decided; reload and review it again.',
  expired: 'The deadline passed: the ticket expired and the host was told "unresolved".',
  reason_required: 'Say why you reject it: the agent and the audit trail get this reason.',
  edit_touches_redacted:
    'That edit touches a redacted value. Redacted values were never shown to you, so they cannot be edited here.',
  edit_path_invalid: 'That path does not resolve against the target.',
  edit_value_invalid: 'The value is not valid JSON within the value domain (§4.4).',
  resolution_invalid:
    'The resulting resolution failed validation (§9), so nothing was released. Try a different edit.',
  forbidden: 'Only reviewers and admins decide. Auditors see tickets read-only.',
};

/**
 * Approve, approve with an edit, or reject, echoing the context identity
 * that was displayed (§9). The role is checked here and again by
 * decideTicket; a hidden form is not a permission.
 */
export const decideAction = withOutageState(async function decideAction(
  _prev: DecisionState,
  form: FormData,
): Promise<DecisionState> {
  const user = await getCurrentUser();
  if (!user || !hasAnyRole(user.roles, AREAS.approvals.roles)) {
    return { status: 'error', code: 'forbidden', message: MESSAGES.forbidden };
  }
  const ticketId = String(form.get('ticketId') ?? '');
  const outcome = String(form.get('outcome') ?? '');
  const contextIdentity =
    form.get('identityNull') === '1' ? null : String(form.get('contextIdentity') ?? '');
  const reason = String(form.get('reason') ?? '').trim();
  let edit: { path: string; value: unknown } | undefined;
  if (outcome === 'edit') {
    const text = String(form.get('editValue') ?? '');
    try {
      // The raw text is checked before JSON.parse can round a big integer (§4.4).
      edit = { path: String(form.get('editPath') ?? ''), value: parseJsonText(text) };
    } catch (err) {
      if (!(err instanceof ValueDomainError)) throw err;
      return {
        status: 'error',
        code: 'edit_value_invalid',
        message: `The value is refused: ${err.message}.`,
      };
    }
  } else if (outcome !== 'approve' && outcome !== 'reject') {
    return { status: 'error', code: 'request_invalid', message: 'Unknown decision.' };
  }
  if (outcome === 'reject' && !reason) {
    return { status: 'error', code: 'reason_required', message: MESSAGES.reason_required };
  }
  // How this session signed in goes into the decision's receipt (issue 13);
  // the session was read once for getCurrentUser (React cache).
  const session = await getActiveSession();
  try {
    await decideTicket({
      ticketId,
      actor: { kind: 'human', userId: user.id, auth: session?.method },
      outcome: outcome === 'reject' ? 'reject' : 'approve',
      contextIdentity,
      edit,
      reason: reason || undefined,
    });
  } catch (err) {
    // No revalidation here: the page would re-render as decided and the
    // reviewer would never read why their decision did not count.
    return actionErrorState(err, undefined, { describe: describeError });
  }
  revalidatePath(`/approvals/${ticketId}`);
  revalidatePath('/approvals');
  const done = { approve: 'Approved.', edit: 'Approved with your edit.', reject: 'Rejected.' };
  return { status: 'ok', code: 'decided', message: done[outcome as keyof typeof done] };
});

function describeError(err: AppError): string {
  if (err instanceof DecisionError && err.code === 'already_decided') {
    const by = err.decidedBy?.email ?? err.decidedBy?.kind ?? 'someone else';
    const at = err.decidedAt ? ` at ${formatAbsolute(new Date(err.decidedAt))}` : '';
    return `Already decided by ${by}${at}. Your decision was not applied.`;
  }
  const base = MESSAGES[err.code];
  // The service's own message is specific (which path, which rule); keep it next to ours.
  if (base && err.message && err.message !== base) return `${base} (${err.message})`;
  return base ?? err.message;
}
