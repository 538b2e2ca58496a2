import 'server-only';
import {
  type AgentContext,
  type ApprovalResolution,
  applyTransform,
  checkValueDomain,
  formatPath,
  parseTransformPath,
  redactionTouchedByEdit,
  type Verdict,
  validateResolution,
} from '@checkpoint/agent-hooks';
import { DecisionError } from './errors';

/**
 * Reason on the deny a rejection carries when the decider picked no reason
 * code; their words go in `message`. It is what the host enforces and what the
 * rejected emission's record shows (§9 reject: the resolver's deny becomes the
 * combined verdict), so it is stable and never `host_error:` (§11).
 */
export const REJECTED_REASON = 'approval_rejected';

export type DecisionEdit = { path: string; value: unknown };

/**
 * The verdict a decision releases: allow, a transform of the target (approve
 * with edit), or a deny carrying the reviewer's reason (§9).
 */
export function decisionVerdict(
  outcome: 'approve' | 'reject',
  opts: {
    edit?: DecisionEdit;
    reason?: string;
    /** A reason code the decider picked (e.g. an automated resolver's own deny reason). */
    reasonCode?: string | null;
    context: AgentContext;
    redactedPaths: string[];
  },
): Verdict {
  if (outcome === 'reject') {
    const message = opts.reason?.trim();
    if (!message) throw new DecisionError('reason_required', 'A rejection needs a reason.');
    return { decision: 'deny', reason: rejectionReason(opts.reasonCode), message };
  }
  if (!opts.edit) return { decision: 'allow' };
  const { path, value } = opts.edit;
  const parsed = parseTransformPath(path);
  if (!parsed.ok) {
    throw new DecisionError(
      'edit_path_invalid',
      `The edit path is not a $target path: ${parsed.message}`,
    );
  }
  const canonical = formatPath(parsed.segments);
  // The engine's §9 rule, the one the edit form applies too; a redacted path
  // outside the §5.2 grammar is touched by every edit (fail closed).
  const touched = redactionTouchedByEdit(parsed.segments, opts.redactedPaths);
  if (touched) {
    throw new DecisionError(
      'edit_touches_redacted',
      touched.canonical !== null
        ? `The edit touches the redacted path ${touched.canonical}; the reviewer never saw its value.`
        : `The host redacted ${touched.path}, which is not a §5.2 path, so no edit can be shown clear of it.`,
    );
  }
  try {
    checkValueDomain(value === undefined ? null : value);
  } catch (err) {
    throw new DecisionError(
      'edit_value_invalid',
      `The edited value is not interoperable JSON: ${err instanceof Error ? err.message : 'invalid'}`,
    );
  }
  const applied = applyTransform(opts.context, { path: canonical, value: value ?? null });
  if (!applied.ok) {
    throw new DecisionError('edit_path_invalid', `The edit cannot apply: ${applied.message}`);
  }
  // The host refuses an edited context outside the domain as context_invalid (§10.2), e.g.
  // a value that passes alone but nests past the depth bound where it lands: refuse it here.
  try {
    checkValueDomain(applied.context);
  } catch (err) {
    throw new DecisionError(
      'edit_value_invalid',
      `The edited context is not interoperable JSON: ${err instanceof Error ? err.message : 'invalid'}`,
    );
  }
  return { decision: 'transform', transform: { path: canonical, value: value ?? null } };
}

/** A picked code, else the default; §11 keeps `host_error:` for hosts alone. */
function rejectionReason(code: string | null | undefined): string {
  // §5.2: an absent member and null are the same.
  if (code === undefined || code === null) return REJECTED_REASON;
  const trimmed = code.trim();
  if (!trimmed || trimmed.startsWith('host_error:')) {
    throw new DecisionError(
      'resolution_invalid',
      'A rejection reason code must be non-empty and must not use the reserved host_error: prefix.',
    );
  }
  return trimmed;
}

/**
 * The resolution the host will receive, checked exactly as a host checks it
 * (§9 order, against the request's identity); a failure releases nothing.
 */
export function buildResolution(
  identity: string | null,
  outcome: ApprovalResolution['outcome'],
  verdict?: Verdict,
): ApprovalResolution {
  const resolution: ApprovalResolution =
    outcome === 'unresolved'
      ? { outcome, context_identity: identity }
      : { outcome, context_identity: identity, verdict };
  const check = validateResolution(resolution, identity);
  if (!check.ok) {
    throw new DecisionError(
      'resolution_invalid',
      `The resolution would fail §9 validation (${check.reason}); nothing was released.`,
    );
  }
  return resolution;
}
