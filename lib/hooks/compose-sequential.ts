import { pickWinner } from './aggregate.ts';
import { type ComposeEnv, type Composed, noteConsultation } from './compose.ts';
import type { AgentContext, Verdict } from './types.ts';
import { hostDeny, isLiftable } from './validate-verdict.ts';

const ALLOW: Verdict = { decision: 'allow' };

/**
 * §7.4 sequential/first_deny: registration order, transforms fold through
 * (enforce only; evaluate_only validates them), the first deny ends the fold.
 */
export async function composeFirstDeny(env: ComposeEnv): Promise<Composed> {
  const n = env.interceptors.length;
  const resume = env.composition.on_approval === 'resume';
  const out: Composed = {
    winner: ALLOW,
    decidedBy: null,
    slots: [],
    resolutions: [],
    context: env.context,
  };
  let ctx = env.context;
  let lastTransform: { verdict: Verdict; index: number } | null = null;
  let lastConsulted: number | null = null;
  // §7.3/§5.3: on an all-allow fold the first allow wins, so its reason and
  // evidence reach the record; decided_by stays null (§10.3).
  let firstAllow: Verdict | null = null;
  const end = (winner: Verdict, decidedBy: number | null, i: number): Composed => {
    out.winner = winner;
    out.decidedBy = decidedBy;
    out.foldTruncated = i < n - 1;
    out.context = ctx;
    return out;
  };
  // Fold a transform into ctx; a failed application is a deny that short-circuits.
  const fold = (v: Verdict): Verdict | null => {
    const applied = env.apply(ctx, v.transform!);
    if (!applied.ok) return hostDeny(applied.reason, applied.message);
    if (env.enforce) ctx = applied.context;
    return null;
  };

  for (let i = 0; i < n; i++) {
    const pending = env.run(i, ctx);
    const slot = pending instanceof Promise ? await pending : pending;
    out.slots.push(slot);
    const v = slot.effective;
    if (v.decision === 'transform') {
      const failure = fold(v);
      if (failure) return end(failure, null, i);
      lastTransform = { verdict: v, index: i };
      continue;
    }
    if (v.decision === 'allow') {
      firstAllow ??= v;
      continue;
    }
    if (!isLiftable(v) || !env.consult) return end(v, slot.nullDecider ? null : i, i);

    // §7.4 "stop" ends the fold at this denier whatever the outcome; "resume" goes on.
    const at = { slots: out.slots, decidedBy: i, foldTruncated: !resume && i < n - 1 };
    const outcome = await env.consult(
      v,
      ctx,
      at,
      ctx === env.context ? env.inputIdentity : undefined,
    );
    noteConsultation(out, outcome);
    if (!outcome.permit) return end(outcome.verdict, i, i);
    if (outcome.verdict.decision === 'transform') {
      const failure = fold(outcome.verdict);
      if (failure) return end(failure, null, i);
    }
    // §7.4 "stop": the permit is the combined verdict and the fold ends here.
    if (!resume) return end(outcome.verdict, i, i);
    // §7.4 "resume": the permit takes the denier's place and the fold goes on.
    lastConsulted = i;
    if (outcome.verdict.decision === 'transform')
      lastTransform = { verdict: outcome.verdict, index: i };
  }
  out.context = ctx;
  out.foldTruncated = false;
  if (lastTransform) {
    out.winner = lastTransform.verdict;
    out.decidedBy = lastTransform.index;
  } else {
    out.winner = out.resolutions.at(-1) ?? firstAllow ?? ALLOW;
    out.decidedBy = lastConsulted;
  }
  return out;
}

/**
 * §7.4 sequential/run_all: every interceptor runs (a failed fold transform
 * still short-circuits); severity-max aggregate; the seam is consulted once,
 * only when every deny returned is liftable.
 */
export async function composeRunAll(env: ComposeEnv): Promise<Composed> {
  const n = env.interceptors.length;
  const out: Composed = {
    winner: ALLOW,
    decidedBy: null,
    slots: [],
    resolutions: [],
    context: env.context,
  };
  let ctx: AgentContext = env.context;
  out.foldTruncated = false;
  for (let i = 0; i < n; i++) {
    const pending = env.run(i, ctx);
    const slot = pending instanceof Promise ? await pending : pending;
    out.slots.push(slot);
    if (slot.effective.decision !== 'transform') continue;
    const applied = env.apply(ctx, slot.effective.transform!);
    if (!applied.ok) {
      // The failed transform composes as a plain deny in its slot, then the fold stops.
      slot.effective = hostDeny(applied.reason, applied.message);
      slot.nullDecider = true;
      out.foldTruncated = i < n - 1;
      break;
    }
    if (env.enforce) ctx = applied.context;
  }
  out.context = ctx;
  const best = pickWinner(out.slots);
  if (!best) return out;
  out.winner = best.effective;
  out.decidedBy = best.nullDecider || best.effective.decision === 'allow' ? null : best.index;

  const denies = out.slots.filter((s) => s.effective.decision === 'deny');
  if (
    !isLiftable(best.effective) ||
    !env.consult ||
    !denies.every((s) => isLiftable(s.effective))
  ) {
    return out;
  }
  // Every interceptor has run (a failed fold transform is a plain deny: no consultation).
  const at = { slots: out.slots, decidedBy: out.decidedBy, foldTruncated: false };
  const outcome = await env.consult(
    best.effective,
    ctx,
    at,
    ctx === env.context ? env.inputIdentity : undefined,
  );
  noteConsultation(out, outcome);
  out.winner = outcome.verdict;
  if (outcome.permit && outcome.verdict.decision === 'transform') {
    const applied = env.apply(ctx, outcome.verdict.transform!);
    if (!applied.ok) {
      out.winner = hostDeny(applied.reason, applied.message);
      out.decidedBy = null;
      return out;
    }
    out.context = applied.context;
  }
  return out;
}
