import { combine, labelsByNamespace, type Slot } from './aggregate.ts';
import { consultSeam, type Seam } from './approval.ts';
import type { ComposeEnv, Composed } from './compose.ts';
import { composeStrictest, composeUnanimous } from './compose-parallel.ts';
import { composeFirstDeny, composeRunAll } from './compose-sequential.ts';
import { dispatch } from './dispatch.ts';
import { digestContext } from './digest.ts';
import { type IdentityProvider, jcsSha256 } from './identity.ts';
import { buildRecord, consultationAt, rejectedRecord } from './record-builder.ts';
import { applyTransform, type TransformOutcome } from './transform.ts';
import type {
  AgentContext,
  EmissionResult,
  InterceptionRecord,
  InterceptorRegistration,
  RecordComposition,
  TransformSpec,
  Verdict,
} from './types.ts';
import { validateContextEnvelope } from './validate-context.ts';
import { hostDeny } from './validate-verdict.ts';
import { checkValueDomain } from './value-domain.ts';
import { HOST_ERRORS, type HostErrorReason, type Mode } from './vocabulary.ts';

/** Everything one emission runs under, resolved from host and session configuration. */
export interface EmissionSettings {
  mode: Mode;
  composition: RecordComposition;
  interceptors: readonly InterceptorRegistration[];
  provider: IdentityProvider | null;
  seam: Omit<Seam, 'provider'> | null;
  interceptorTimeoutMs: number;
  maxBytes: number;
  maxDepth: number;
  /** Namespace for labels of interceptors registered without one (§5.4). */
  namespace: string;
}

/** A verdict the host reaches without dispatching (ordering, capability, streaming). */
export interface Preempt {
  reason: HostErrorReason;
  message: string;
}

/**
 * One emission (§2): envelope and value-domain checks, identity, dispatch
 * per profile, approval, enforced identity, record. Never throws: every
 * failure is a fail-closed deny with a reserved reason (§6.3, §11).
 *
 * Synchronous interceptors give a synchronous result (no promise frame
 * between the caller and the fold); anything asynchronous gives a promise.
 */
export function runEmission(
  raw: unknown,
  s: EmissionSettings,
  preempt?: { before?: Preempt; after?: Preempt },
): EmissionResult | Promise<EmissionResult> {
  // Only a context that fights back fails here (a throwing getter, a revoked proxy):
  // it could not be processed, so it is refused like any unconstructible context.
  const unreadable = () =>
    rejectedResult(raw, s, hostDeny(HOST_ERRORS.contextInvalid, 'the context could not be read'));
  try {
    const result = emission(raw, s, preempt);
    return result instanceof Promise ? result.catch(unreadable) : result;
  } catch {
    return unreadable();
  }
}

function emission(
  raw: unknown,
  s: EmissionSettings,
  preempt?: { before?: Preempt; after?: Preempt },
): EmissionResult | Promise<EmissionResult> {
  const rejected = (reason: HostErrorReason, message: string) =>
    rejectedResult(raw, s, hostDeny(reason, message));
  if (preempt?.before) return rejected(preempt.before.reason, preempt.before.message);
  const envelope = validateContextEnvelope(raw);
  if (!envelope.ok) return rejected(envelope.reason, envelope.message);
  const ctx = envelope.context;
  const inputIdentity = checkAndIdentify(ctx, s);
  if (inputIdentity instanceof Error)
    return rejected(HOST_ERRORS.contextInvalid, inputIdentity.message);

  const enforce = s.mode === 'enforce';
  if (preempt?.after) {
    const after = hostDeny(preempt.after.reason, preempt.after.message);
    return outcome(ctx, s, inputIdentity, synthesized(ctx, s, after), false);
  }
  if (s.interceptors.length === 0) {
    // §7: profile-independent; a passthrough is an explicit allow-all interceptor.
    // In evaluate_only the record still shows this real combined verdict while
    // the action proceeds (§8), so an empty shadow deployment never looks all-allow.
    const none = hostDeny(HOST_ERRORS.noInterceptor, 'no interceptor is registered');
    return outcome(ctx, s, inputIdentity, synthesized(ctx, s, none), false);
  }
  const composed = compose(ctx, inputIdentity, s, enforce);
  return composed instanceof Promise
    ? composed.then((c) => outcome(ctx, s, inputIdentity, c, true))
    : outcome(ctx, s, inputIdentity, composed, true);
}

/** The combined verdict, the enforced identity and the record of a composed emission. */
function outcome(
  ctx: AgentContext,
  s: EmissionSettings,
  inputIdentity: string | null,
  composed: Composed,
  dispatched: boolean,
): EmissionResult {
  const enforce = s.mode === 'enforce';
  const { winner, decidedBy, enforcedIdentity } = dispatched
    ? enforcedOutcome(ctx, composed, inputIdentity, s)
    : { winner: composed.winner, decidedBy: null, enforcedIdentity: inputIdentity };
  const proceed = !enforce || winner.decision !== 'deny';
  const returned = [...composed.slots.map((x: Slot) => x.returned), ...composed.resolutions];
  const { verdict, labels } = combine(winner, returned, proceed);
  const applied = enforce && proceed;
  const context = applied ? composed.context : ctx;
  const record = buildRecord(ctx, s, {
    verdict,
    inputIdentity,
    enforcedIdentity: enforce ? enforcedIdentity : inputIdentity,
    decidedBy,
    composed,
  });
  return {
    proceed,
    verdict,
    target: context.target,
    context,
    record,
    mode: s.mode,
    resultLabels: labels,
    labelsByNamespace: proceed ? labelsByNamespace(composed.slots, s) : {},
  };
}

/**
 * §10.3: the enforced identity is the provider over the post-composition
 * context. A composed context_invalid can only be a transform whose result left
 * the domain (applyChecked; interceptors and resolvers may not use host_error:
 * reasons, §11): that enforced context has no identity (§10.2), hence null.
 */
function enforcedOutcome(
  ctx: AgentContext,
  composed: Composed,
  inputIdentity: string | null,
  s: EmissionSettings,
): { winner: Verdict; decidedBy: number | null; enforcedIdentity: string | null } {
  const { winner, decidedBy } = composed;
  if (winner.reason === HOST_ERRORS.contextInvalid)
    return { winner, decidedBy, enforcedIdentity: null };
  if (s.mode !== 'enforce' || composed.context === ctx)
    return { winner, decidedBy, enforcedIdentity: inputIdentity };
  const after = checkAndIdentify(composed.context, s);
  if (after instanceof Error) {
    const failed = hostDeny(HOST_ERRORS.contextInvalid, after.message);
    return { winner: failed, decidedBy: null, enforcedIdentity: null };
  }
  return { winner, decidedBy, enforcedIdentity: after };
}

function compose(
  ctx: AgentContext,
  inputIdentity: string | null,
  s: EmissionSettings,
  enforce: boolean,
): Composed | Promise<Composed> {
  const seam = s.seam;
  const canConsult = enforce && seam !== null && ctx.interception_point !== 'agent_shutdown';
  const env: ComposeEnv = {
    context: ctx,
    inputIdentity,
    interceptors: s.interceptors,
    composition: s.composition,
    enforce,
    run: (i, c) =>
      dispatch(s.interceptors[i], i, c, {
        interceptorTimeoutMs: s.interceptorTimeoutMs,
        maxDepth: s.maxDepth,
      }),
    apply: (c, t) => applyChecked(c, t, s),
    consult: canConsult
      ? (trigger, c, at, known) =>
          consultSeam({ ...seam, provider: s.provider }, trigger, c, known, consultationAt(at, s))
      : null,
  };
  switch (s.composition.profile) {
    case 'sequential/first_deny':
      return composeFirstDeny(env);
    case 'sequential/run_all':
      return composeRunAll(env);
    case 'parallel/strictest':
      return composeStrictest(env);
    case 'parallel/unanimous':
      return composeUnanimous(env);
  }
}

/**
 * §5.2 application, then the result must still be a §4 context in the §4.4
 * domain. A result outside the domain cannot be canonicalized (§10.2), so it
 * fails as context_invalid, not transform_invalid: the path resolved and the
 * value was set, the enforced context is what is invalid. evaluate_only calls
 * this too: §8 validates every transform without applying it, and the record
 * shows what enforce would have decided (the identities stay equal there).
 */
function applyChecked(ctx: AgentContext, t: TransformSpec, s: EmissionSettings): TransformOutcome {
  const applied = applyTransform(ctx, t);
  if (!applied.ok) return applied;
  // The result must still be a §4 context: e.g. replacing `input` must keep content and role.
  if (!validateContextEnvelope(applied.context).ok) {
    return {
      ok: false,
      reason: HOST_ERRORS.transformInvalid,
      message: 'the transformed context fails the §4 envelope',
    };
  }
  // The whole result, not just the value: depth and size bounds depend on where it lands.
  try {
    checkValueDomain(applied.context, { maxBytes: s.maxBytes, maxDepth: s.maxDepth });
  } catch (error) {
    return {
      ok: false,
      reason: HOST_ERRORS.contextInvalid,
      message: `the transformed context: ${domainMessage(error)}`,
    };
  }
  return applied;
}

/** A host-decided emission: no interceptor ran, so any registered one was skipped. */
function synthesized(ctx: AgentContext, s: EmissionSettings, winner: Verdict): Composed {
  const foldTruncated = s.interceptors.length > 0;
  return { winner, decidedBy: null, slots: [], resolutions: [], context: ctx, foldTruncated };
}

/**
 * §4.4/§12.3 domain and bounds, then the identity (§10.1); an Error means
 * context_invalid. The default provider takes the one-pass digest; when that
 * declines, the authoritative checks run and explain.
 */
function checkAndIdentify(ctx: AgentContext, s: EmissionSettings): string | null | Error {
  if (s.provider === jcsSha256) {
    const digest = digestContext(ctx, { maxBytes: s.maxBytes, maxDepth: s.maxDepth });
    if (digest) return digest.identity;
  }
  try {
    checkValueDomain(ctx, { maxBytes: s.maxBytes, maxDepth: s.maxDepth });
  } catch (error) {
    return new Error(domainMessage(error));
  }
  return computeIdentity(s.provider, ctx);
}

/** §10.1: a provider that raises or returns a non-string fails the emission closed. */
function computeIdentity(
  provider: IdentityProvider | null,
  ctx: AgentContext,
): string | null | Error {
  if (!provider) return null;
  try {
    const id = provider.compute(ctx);
    if (typeof id === 'string') return id;
    return new Error(`identity provider ${provider.name} returned a non-string`);
  } catch (error) {
    return new Error(domainMessage(error, `identity provider ${provider.name} failed`));
  }
}

/** The value-domain errors' messages name a path and a remedy, never a value; anything else is replaced. */
function domainMessage(
  error: unknown,
  fallback = 'context is outside the §4.4 value domain',
): string {
  const e = error as { name?: string; message?: string } | null;
  return e?.name === 'ValueDomainError' && typeof e.message === 'string' ? e.message : fallback;
}

function rejectedResult(raw: unknown, s: EmissionSettings, verdict: Verdict): EmissionResult {
  let record: InterceptionRecord;
  let target: unknown;
  try {
    record = rejectedRecord(raw, s, verdict);
    target = (raw as { target?: unknown } | null)?.target;
  } catch {
    record = rejectedRecord(null, s, verdict);
  }
  const context = raw as AgentContext;
  return {
    proceed: s.mode === 'evaluate_only',
    verdict,
    target,
    context,
    record,
    mode: s.mode,
    resultLabels: [],
    labelsByNamespace: {},
  };
}
