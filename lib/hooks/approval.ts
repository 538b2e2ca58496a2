import type { IdentityProvider } from './identity.ts';
import { isPlainObject, toPlain } from './plain.ts';
import { withTimeout } from './timeout.ts';
import type {
  AgentContext,
  ApprovalConsultation,
  ApprovalRedactor,
  ApprovalRequest,
  ApprovalResolver,
  Verdict,
} from './types.ts';
import { validateResolution } from './validate-resolution.ts';
import { hostDeny } from './validate-verdict.ts';
import { HOST_ERRORS } from './vocabulary.ts';

export interface Seam {
  resolver: ApprovalResolver;
  redactor?: ApprovalRedactor;
  provider: IdentityProvider | null;
  resolverTimeoutMs: number;
  maxDepth: number;
}

/**
 * A permit substitutes (§7.6); a reject substitutes the resolver's deny; a
 * failure (unresolved, raised, echo violation, invalid) is a reserved deny.
 * All three non-permits record `resolved_by: "rejection"`.
 */
export type ConsultOutcome =
  | { permit: true; verdict: Verdict }
  | { permit: false; verdict: Verdict; resolution?: Verdict };

/**
 * One consultation of the approval seam (§9). The caller has already decided
 * that the profile consults here, and that the mode and point allow it.
 * `knownIdentity` is the provider's output for `context` when already computed;
 * `consultation` is the payload-free state handed to the resolver beside the request.
 */
export async function consultSeam(
  seam: Seam,
  trigger: Verdict,
  context: AgentContext,
  knownIdentity: string | null | undefined,
  consultation: ApprovalConsultation,
): Promise<ConsultOutcome> {
  const failed = (message: string): ConsultOutcome => ({
    permit: false,
    verdict: hostDeny(HOST_ERRORS.approvalResolverFailed, message),
  });

  // The resolver is the main egress; it gets its own copy, never the engine's context.
  let requestContext: AgentContext;
  try {
    const copy = toPlain(context, seam.maxDepth + 2) as AgentContext;
    requestContext = seam.redactor ? seam.redactor(copy) : copy;
    if (!isPlainObject(requestContext)) return failed('approval redactor returned no context');
  } catch {
    return failed('approval redactor failed');
  }

  // §9: the identity binds exactly what the approver is shown, after redaction.
  let identity: string | null = null;
  if (seam.provider) {
    if (!seam.redactor && knownIdentity !== undefined) {
      identity = knownIdentity;
    } else {
      try {
        const computed = seam.provider.compute(requestContext);
        if (typeof computed !== 'string')
          return failed('identity provider failed on the request context');
        identity = computed;
      } catch {
        return failed('identity provider failed on the request context');
      }
    }
  }

  const request: ApprovalRequest = {
    context_identity: identity,
    interception_point: context.interception_point,
    verdict: structuredClone(trigger),
    context: requestContext,
  };
  const run = await withTimeout(
    (signal) => seam.resolver(request, signal, consultation),
    seam.resolverTimeoutMs,
  );
  if (!run.ok)
    return failed(run.timedOut ? 'approval resolver timed out' : 'approval resolver raised');

  let raw: unknown;
  try {
    raw = toPlain(run.value, seam.maxDepth);
  } catch {
    return failed('approval resolver returned a non-JSON value');
  }
  const checked = validateResolution(raw, identity);
  if (!checked.ok) return { permit: false, verdict: hostDeny(checked.reason, checked.message) };
  if (checked.outcome === 'unresolved') {
    return {
      permit: false,
      verdict: hostDeny(HOST_ERRORS.approvalUnresolved, 'approval resolver could not decide'),
    };
  }
  if (checked.outcome === 'approve') return { permit: true, verdict: checked.verdict };
  // §9/§7.6 reject: the resolver's own deny becomes the combined verdict at the
  // trigger's position, so the reviewer's reason and message reach the host and
  // the record; the trigger's warnings still join the §7.3 union from its slot.
  return { permit: false, verdict: checked.verdict, resolution: checked.verdict };
}
