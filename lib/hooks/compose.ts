import type { Slot } from './aggregate.ts';
import type { ConsultOutcome } from './approval.ts';
import type { TransformOutcome } from './transform.ts';
import type {
  AgentContext,
  InterceptorRegistration,
  RecordComposition,
  TransformSpec,
  Verdict,
} from './types.ts';

/** What a profile needs from the emission around it. */
export interface ComposeEnv {
  context: AgentContext;
  inputIdentity: string | null;
  interceptors: readonly InterceptorRegistration[];
  composition: RecordComposition;
  enforce: boolean;
  run: (index: number, context: AgentContext) => Slot | Promise<Slot>;
  apply: (context: AgentContext, transform: TransformSpec) => TransformOutcome;
  /** Null when the seam may not be consulted (no resolver, evaluate_only, agent_shutdown). */
  consult:
    | ((
        trigger: Verdict,
        context: AgentContext,
        at: ConsultPosition,
        knownIdentity?: string | null,
      ) => Promise<ConsultOutcome>)
    | null;
}

/** Where the profile stands when it consults: summarized for the resolver at once. */
export interface ConsultPosition {
  slots: readonly Slot[];
  /** §7.6: the consulted interceptor's index, null for a synthesized deny. */
  decidedBy: number | null;
  /** Whether interceptors will be skipped because of this consultation (§7.4). */
  foldTruncated: boolean;
}

export interface Composed {
  winner: Verdict;
  decidedBy: number | null;
  slots: Slot[];
  /** Verdicts the resolver returned: they join the §7.3 unions. */
  resolutions: Verdict[];
  foldTruncated?: boolean;
  resolvedBy?: 'approval' | 'rejection';
  /** The context after composition; the input context itself when nothing was applied. */
  context: AgentContext;
}

/** Record a consultation outcome on the composition being built. */
export function noteConsultation(
  c: { resolutions: Verdict[]; resolvedBy?: 'approval' | 'rejection' },
  outcome: ConsultOutcome,
): void {
  c.resolvedBy = outcome.permit ? 'approval' : 'rejection';
  const returned = outcome.permit ? outcome.verdict : outcome.resolution;
  if (returned) c.resolutions.push(returned);
}
