import type { Composed, ConsultPosition } from './compose.ts';
import type { EmissionSettings } from './emission.ts';
import { isPlainObject } from './plain.ts';
import { isSequential, projectVerdictForRecord } from './record.ts';
import type { ApprovalConsultation, InterceptionRecord, Verdict, VerdictSummary } from './types.ts';

interface Outcome {
  verdict: Verdict;
  inputIdentity: string | null;
  enforcedIdentity: string | null;
  decidedBy: number | null;
  composed: Composed;
}

/** §10.3: the record of a dispatched (or host-decided) emission, with every presence rule. */
export function buildRecord(ctx: unknown, s: EmissionSettings, o: Outcome): InterceptionRecord {
  const record = envelopeFields(
    ctx,
    s,
    o.verdict,
    o.inputIdentity,
    o.enforcedIdentity,
    o.decidedBy,
  );
  const slots = o.composed.slots;
  // Required in multi-verdict profiles; first_deny carries it too (OPTIONAL there) when anything ran.
  if (s.composition.profile !== 'sequential/first_deny' || slots.length > 0) {
    record.verdicts = slots.map((slot) => summarize(slot.index, slot.returned, s));
  }
  if (isSequential(s.composition)) record.fold_truncated = o.composed.foldTruncated ?? false;
  if (o.composed.resolvedBy) record.resolved_by = o.composed.resolvedBy;
  return record;
}

/**
 * §10.2/§10.3: a context rejected before dispatch still gets a record, with
 * best-effort envelope fields, null identities and the fail-closed verdict.
 */
export function rejectedRecord(
  raw: unknown,
  s: EmissionSettings,
  verdict: Verdict,
): InterceptionRecord {
  const record = envelopeFields(raw, s, verdict, null, null, null);
  if (s.composition.profile !== 'sequential/first_deny') record.verdicts = [];
  if (isSequential(s.composition)) record.fold_truncated = s.interceptors.length > 0;
  return record;
}

function envelopeFields(
  raw: unknown,
  s: EmissionSettings,
  verdict: Verdict,
  inputIdentity: string | null,
  enforcedIdentity: string | null,
  decidedBy: number | null,
): InterceptionRecord {
  const ctx = isPlainObject(raw) ? raw : {};
  const session = isPlainObject(ctx.session) ? ctx.session : {};
  const record: InterceptionRecord = {
    interception_point: typeof ctx.interception_point === 'string' ? ctx.interception_point : '',
    mode: s.mode,
    verdict: projectVerdictForRecord(verdict),
    input_identity: inputIdentity,
    enforced_identity: enforcedIdentity,
    identity_provider: s.provider ? s.provider.name : null,
    session_id: typeof session.id === 'string' ? session.id : '',
    sequence: typeof ctx.sequence === 'number' ? ctx.sequence : -1,
    decided_by: decidedBy,
    composition: { ...s.composition },
    interceptors_registered: s.interceptors.length,
  };
  if (typeof ctx.timestamp === 'string') record.timestamp = ctx.timestamp;
  const trace = isPlainObject(ctx.trace) ? ctx.trace : null;
  if (trace && (typeof trace.trace_id === 'string' || typeof trace.span_id === 'string')) {
    record.trace = {};
    if (typeof trace.trace_id === 'string') record.trace.trace_id = trace.trace_id;
    if (typeof trace.span_id === 'string') record.trace.span_id = trace.span_id;
  }
  return record;
}

/**
 * What the resolver learns beside the request: the §10.3 composition block,
 * summaries and counts as the record will carry them, at consultation time.
 */
export function consultationAt(at: ConsultPosition, s: EmissionSettings): ApprovalConsultation {
  return {
    composition: { ...s.composition },
    interceptors_registered: s.interceptors.length,
    verdicts: at.slots.map((slot) => summarize(slot.index, slot.returned, s)),
    decided_by: at.decidedBy,
    fold_truncated: at.foldTruncated,
  };
}

function summarize(index: number, v: Verdict, s: EmissionSettings): VerdictSummary {
  const out: VerdictSummary = { index, decision: v.decision };
  if (v.reason !== undefined) out.reason = v.reason;
  const name = s.interceptors[index]?.name;
  if (name !== undefined) out.name = name;
  return out;
}
