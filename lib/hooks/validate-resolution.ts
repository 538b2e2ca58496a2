import { isPlainObject } from './plain.ts';
import type { ApprovalResolution, Verdict } from './types.ts';
import { validateVerdict } from './validate-verdict.ts';
import { HOST_ERRORS, type HostErrorReason, OUTCOMES } from './vocabulary.ts';

export type ResolutionCheck =
  | { ok: true; outcome: 'approve' | 'reject'; verdict: Verdict }
  | { ok: true; outcome: 'unresolved' }
  | { ok: false; reason: HostErrorReason; message: string };

/**
 * §9 resolution validation in the normative order, first failure wins:
 * echo rule → outcome/verdict presence → §5 validity → outcome/verdict
 * consistency. A valid `unresolved` is still a deny for the caller
 * (`host_error:approval_unresolved`); this function only says it was well-formed.
 */
export function validateResolution(
  resolution: unknown,
  requestIdentity: string | null,
): ResolutionCheck {
  // A resolver that hands back no object at all failed, before any echo can be read.
  if (!isPlainObject(resolution)) {
    return {
      ok: false,
      reason: HOST_ERRORS.approvalResolverFailed,
      message: '§9: resolution is not a JSON object',
    };
  }
  const r = resolution;
  // 1. Echo rule, byte for byte; null echoes as null.
  if (r.context_identity !== requestIdentity) {
    return {
      ok: false,
      reason: HOST_ERRORS.approvalIdentityMismatch,
      message: '§9: resolution context_identity does not echo the request',
    };
  }
  // 2. Outcome in the closed set, verdict present exactly when outcome != unresolved.
  // A null verdict is an absent one: bindings omit nulls when they marshal (§5.2).
  const outcome = r.outcome;
  const hasVerdict = r.verdict !== undefined && r.verdict !== null;
  if (
    !(OUTCOMES as readonly unknown[]).includes(outcome) ||
    hasVerdict !== (outcome !== 'unresolved')
  ) {
    return {
      ok: false,
      reason: HOST_ERRORS.approvalResolverFailed,
      message: '§9: resolution outcome/verdict presence is malformed',
    };
  }
  if (outcome === 'unresolved') return { ok: true, outcome };
  // 3. The carried verdict passes §5.
  const checked = validateVerdict(r.verdict);
  if (!checked.ok) return checked;
  // 4. approve carries a permit, reject carries a deny.
  const permit = checked.verdict.decision !== 'deny';
  if ((outcome === 'approve') !== permit) {
    return {
      ok: false,
      reason: HOST_ERRORS.verdictInvalid,
      message: `§9: ${outcome} carries a ${checked.verdict.decision} verdict`,
    };
  }
  return { ok: true, outcome: outcome as 'approve' | 'reject', verdict: checked.verdict };
}

export type { ApprovalResolution };
