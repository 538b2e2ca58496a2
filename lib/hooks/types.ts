import type { Decision, InterceptionPoint, Mode, Outcome, Profile } from './vocabulary.ts';

/** A warning on a verdict (§5.1): a recorded concern that never changes control flow. */
export interface Warning {
  reason?: string;
  message?: string;
}

/** §5.2: `value` absent is equivalent to `null`. */
export interface TransformSpec {
  path: string;
  value?: unknown;
}

/** The §5 verdict an interceptor returns and the combined verdict an emission yields. */
export interface Verdict {
  decision: Decision;
  reason?: string;
  message?: string;
  warnings?: Warning[];
  approval?: Record<string, unknown>;
  transform?: TransformSpec;
  evidence?: Record<string, unknown>;
  result_labels?: string[];
}

/** §4: the payload a host builds at one interception point. Optional fields pass through. */
export interface AgentContext {
  spec: string;
  interception_point: InterceptionPoint;
  timestamp: string;
  sequence: number;
  agent: { id: string; framework: string; [k: string]: unknown };
  session: { id: string; [k: string]: unknown };
  target: unknown;
  extensions?: Record<string, unknown>;
  [k: string]: unknown;
}

/** §9 request handed to the resolver. */
export interface ApprovalRequest {
  context_identity: string | null;
  interception_point: InterceptionPoint;
  verdict: Verdict;
  context: AgentContext;
}

/** §9 resolution the resolver answers with. */
export interface ApprovalResolution {
  outcome: Outcome;
  context_identity: string | null;
  verdict?: Verdict;
}

/**
 * An interceptor (§7): sync or async. It receives its own isolated view of the
 * context; the signal aborts when the host's timeout fires.
 */
export type Interceptor = (
  context: AgentContext,
  signal: AbortSignal,
) => Verdict | Promise<Verdict> | unknown;

export interface InterceptorRegistration {
  intercept: Interceptor;
  /** Payload-free registration identifier, shown as `verdicts[].name` on records (§10.3). */
  name?: string;
  /** Extension namespace its `result_labels` resurface under as `source_labels` (§5.4). */
  namespace?: string;
}

/**
 * The payload-free composition state at one consultation, handed to the
 * resolver beside the §9 request (whose shape stays the spec's): the deny set
 * that led here, in the §10.3 record's own shapes, known before the record is.
 */
export interface ApprovalConsultation {
  /** The §10.3 composition block in effect (§7.1), knobs resolved per §7.2. */
  composition: RecordComposition;
  interceptors_registered: number;
  /** §10.3 summaries of every interceptor verdict returned so far in this emission. */
  verdicts: VerdictSummary[];
  /** §7.6: the index whose liftable deny is consulted; null for a synthesized one (§7.5). */
  decided_by: number | null;
  /**
   * True iff registered interceptors will not run because of this
   * consultation (§7.4 first_deny "stop" with interceptors after the denier).
   * "resume" continues the fold, run_all already ran every interceptor and
   * parallel profiles have no fold: false.
   */
  fold_truncated: boolean;
}

/**
 * The resolver (§9). Human approvers take minutes; the signal aborts at the
 * resolver timeout. The engine always passes `consultation`; it is optional
 * so that resolvers and callers written for the two-argument form keep working.
 */
export type ApprovalResolver = (
  request: ApprovalRequest,
  signal: AbortSignal,
  consultation?: ApprovalConsultation,
) => Promise<ApprovalResolution> | ApprovalResolution;

/** §9 redaction seam: a pure function producing the context placed in the request. */
export type ApprovalRedactor = (context: AgentContext) => AgentContext;

export type OnApproval = 'stop' | 'resume';
export type OnDisagreement = 'deny' | 'approval';
export type OnTransformConflict = 'deny' | 'approval';

/** A profile and its knobs as a host spells them (§7.2); unset knobs take the normative defaults. */
export interface Composition {
  profile: Profile;
  on_approval?: OnApproval;
  on_disagreement?: OnDisagreement;
  on_transform_conflict?: OnTransformConflict;
}

/** The record's `composition` block: exactly the knobs the profile consults (§10.3). */
export type RecordComposition = Composition;

export interface VerdictSummary {
  index: number;
  decision: Decision;
  reason?: string;
  name?: string;
}

/** The payload-free record of one emission (§10.3), in wire shape. */
export interface InterceptionRecord {
  interception_point: string;
  mode: Mode;
  verdict: Verdict;
  input_identity: string | null;
  enforced_identity: string | null;
  identity_provider: string | null;
  session_id: string;
  sequence: number;
  timestamp?: string;
  trace?: { trace_id?: string; span_id?: string };
  decided_by: number | null;
  composition: RecordComposition;
  verdicts?: VerdictSummary[];
  fold_truncated?: boolean;
  resolved_by?: 'approval' | 'rejection';
  interceptors_registered: number;
}

/** Where records go; a sink never blocks or affects the emission (§10.3). */
export type RecordSink = (record: InterceptionRecord) => void | Promise<void>;

/** Result of `emit()`: what the host acts on, plus the record. */
export interface EmissionResult {
  /** Whether the guarded action may proceed (always true in evaluate_only, §8). */
  proceed: boolean;
  /** The full combined verdict, in-process only; persist `record`, never this (§10.3). */
  verdict: Verdict;
  /** The value the action consumes: the transformed target when a transform was applied. */
  target: unknown;
  /** The context after composition (transforms applied, target aliased, §4.3). */
  context: AgentContext;
  record: InterceptionRecord;
  mode: Mode;
  /** Combined labels to persist with the produced data; empty when the action did not proceed (§5.4). */
  resultLabels: string[];
  /** Labels per interceptor namespace, for `extensions.<ns>.source_labels` (§5.4). */
  labelsByNamespace: Record<string, string[]>;
}
