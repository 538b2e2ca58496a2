import { pickWinner } from './aggregate.ts';
import { type ComposeEnv, type Composed, noteConsultation } from './compose.ts';
import type { Verdict } from './types.ts';
import { hostDeny, isLiftable } from './validate-verdict.ts';
import { HOST_ERRORS } from './vocabulary.ts';

/**
 * §7.5: every interceptor sees its own copy of the same untransformed
 * snapshot; nothing is applied during dispatch. They run concurrently.
 */
async function dispatchAll(env: ComposeEnv): Promise<Composed> {
  const slots = await Promise.all(env.interceptors.map((_, i) => env.run(i, env.context)));
  return {
    winner: { decision: 'allow' },
    decidedBy: null,
    slots,
    resolutions: [],
    context: env.context,
  };
}

/** Apply the single surviving transform to the snapshot (validate only in evaluate_only). */
function applyWinner(
  env: ComposeEnv,
  out: Composed,
  v: Verdict,
  decidedBy: number | null,
): Composed {
  out.winner = v;
  out.decidedBy = decidedBy;
  if (v.decision !== 'transform') return out;
  const applied = env.apply(env.context, v.transform!);
  if (!applied.ok) {
    out.winner = hostDeny(applied.reason, applied.message);
    out.decidedBy = null;
  } else if (env.enforce) {
    out.context = applied.context;
  }
  return out;
}

/** Consult on a liftable (possibly synthesized) deny; a permit substitutes in its place (§7.6). */
async function lift(env: ComposeEnv, out: Composed, trigger: Verdict, decidedBy: number | null) {
  out.winner = trigger;
  out.decidedBy = decidedBy;
  if (!env.consult || !isLiftable(trigger)) return out;
  // §7.5: no fold, so nothing is skipped; every interceptor has returned.
  const at = { slots: out.slots, decidedBy, foldTruncated: false };
  const outcome = await env.consult(trigger, env.context, at, env.inputIdentity);
  noteConsultation(out, outcome);
  if (!outcome.permit) {
    out.winner = outcome.verdict;
    return out;
  }
  return applyWinner(env, out, outcome.verdict, decidedBy);
}

function synthesized(reason: string, knob: 'deny' | 'approval' | undefined): Verdict {
  const v = hostDeny(reason);
  if (knob === 'approval') v.approval = {};
  return v;
}

/** §7.5 parallel/strictest: severity-max; two or more transforms conflict. */
export async function composeStrictest(env: ComposeEnv): Promise<Composed> {
  const out = await dispatchAll(env);
  const best = pickWinner(out.slots);
  if (!best) return out;
  // An all-allow aggregate: the first allow wins (§7.3), decided_by null (§10.3).
  if (best.effective.decision === 'allow') {
    out.winner = best.effective;
    return out;
  }
  const v = best.effective;
  const decider = best.nullDecider ? null : best.index;
  if (v.decision === 'deny') return lift(env, out, v, decider);
  const transforms = out.slots.filter((s) => s.effective.decision === 'transform');
  if (transforms.length === 1) return applyWinner(env, out, v, best.index);
  const conflict = synthesized(
    HOST_ERRORS.transformConflict,
    env.composition.on_transform_conflict,
  );
  return lift(env, out, conflict, null);
}

/** §7.5 parallel/unanimous: allow iff every interceptor allowed; anything else disagrees. */
export async function composeUnanimous(env: ComposeEnv): Promise<Composed> {
  const out = await dispatchAll(env);
  if (out.slots.every((s) => s.effective.decision === 'allow')) {
    // Unanimous allow: the first allow is the winner (§7.3), decided_by null.
    if (out.slots.length > 0) out.winner = out.slots[0].effective;
    return out;
  }
  const disagreement = synthesized(
    HOST_ERRORS.compositionDisagreement,
    env.composition.on_disagreement,
  );
  return lift(env, out, disagreement, null);
}
