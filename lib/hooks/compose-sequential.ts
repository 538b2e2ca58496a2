import { pickWinner, type Slot } from './aggregate.ts';
import { type ComposeEnv, type Composed, noteConsultation } from './compose.ts';
import type { AgentContext, Verdict } from './types.ts';
import { hostDeny, isLiftable } from './validate-verdict.ts';

const ALLOW: Verdict = { decision: 'allow' };

/**
 * §7.4 sequential/first_deny: registration order, transforms fold through
 * (enforce only; evaluate_only validates them), the first deny ends the fold.
 *
 * The fold runs synchronously for as long as the interceptors answer
 * synchronously and no seam is consulted (the usual emission): no promise
 * frame per step. An asynchronous answer or a consultation continues the
 * same fold from where it stands, so the order and the outcome are the same
 * either way.
 */
export function composeFirstDeny(env: ComposeEnv): Composed | Promise<Composed> {
  return new FirstDenyFold(env).from(0);
}

const NEXT = Symbol('next interceptor');

class FirstDenyFold {
  private readonly n: number;
  private readonly resume: boolean;
  private readonly out: Composed;
  private ctx: AgentContext;
  private lastTransform: { verdict: Verdict; index: number } | null = null;
  private lastConsulted: number | null = null;
  // §7.3/§5.3: on an all-allow fold the first allow wins, so its reason and
  // evidence reach the record; decided_by stays null (§10.3).
  private firstAllow: Verdict | null = null;

  constructor(private readonly env: ComposeEnv) {
    this.n = env.interceptors.length;
    this.resume = env.composition.on_approval === 'resume';
    this.ctx = env.context;
    this.out = { winner: ALLOW, decidedBy: null, slots: [], resolutions: [], context: env.context };
  }

  /** Runs interceptors i, i+1, … synchronously until one answers asynchronously. */
  from(i: number): Composed | Promise<Composed> {
    for (; i < this.n; i++) {
      const pending = this.env.run(i, this.ctx);
      if (pending instanceof Promise) {
        const at = i;
        return pending.then((slot) => this.afterAsync(slot, at));
      }
      const step = this.step(pending, i);
      if (step !== NEXT) return step;
    }
    return this.finish();
  }

  private afterAsync(slot: Slot, i: number): Composed | Promise<Composed> {
    const step = this.step(slot, i);
    return step === NEXT ? this.from(i + 1) : step;
  }

  /** One interceptor's slot: go on, or the fold's end (after a consultation, later). */
  private step(slot: Slot, i: number): typeof NEXT | Composed | Promise<Composed> {
    this.out.slots.push(slot);
    const v = slot.effective;
    if (v.decision === 'transform') {
      const failure = this.fold(v);
      if (failure) return this.end(failure, null, i);
      this.lastTransform = { verdict: v, index: i };
      return NEXT;
    }
    if (v.decision === 'allow') {
      this.firstAllow ??= v;
      return NEXT;
    }
    if (!isLiftable(v) || !this.env.consult) return this.end(v, slot.nullDecider ? null : i, i);
    return this.consult(v, i);
  }

  private async consult(v: Verdict, i: number): Promise<Composed> {
    const env = this.env;
    const consult = env.consult!;
    // §7.4 "stop" ends the fold at this denier whatever the outcome; "resume" goes on.
    const at = {
      slots: this.out.slots,
      decidedBy: i,
      foldTruncated: !this.resume && i < this.n - 1,
    };
    const outcome = await consult(
      v,
      this.ctx,
      at,
      this.ctx === env.context ? env.inputIdentity : undefined,
    );
    noteConsultation(this.out, outcome);
    if (!outcome.permit) return this.end(outcome.verdict, i, i);
    if (outcome.verdict.decision === 'transform') {
      const failure = this.fold(outcome.verdict);
      if (failure) return this.end(failure, null, i);
    }
    // §7.4 "stop": the permit is the combined verdict and the fold ends here.
    if (!this.resume) return this.end(outcome.verdict, i, i);
    // §7.4 "resume": the permit takes the denier's place and the fold goes on.
    this.lastConsulted = i;
    if (outcome.verdict.decision === 'transform')
      this.lastTransform = { verdict: outcome.verdict, index: i };
    return this.from(i + 1);
  }

  /** Fold a transform into ctx; a failed application is a deny that short-circuits. */
  private fold(v: Verdict): Verdict | null {
    const applied = this.env.apply(this.ctx, v.transform!);
    if (!applied.ok) return hostDeny(applied.reason, applied.message);
    if (this.env.enforce) this.ctx = applied.context;
    return null;
  }

  private end(winner: Verdict, decidedBy: number | null, i: number): Composed {
    const out = this.out;
    out.winner = winner;
    out.decidedBy = decidedBy;
    out.foldTruncated = i < this.n - 1;
    out.context = this.ctx;
    return out;
  }

  private finish(): Composed {
    const out = this.out;
    out.context = this.ctx;
    out.foldTruncated = false;
    if (this.lastTransform) {
      out.winner = this.lastTransform.verdict;
      out.decidedBy = this.lastTransform.index;
    } else {
      out.winner = out.resolutions.at(-1) ?? this.firstAllow ?? ALLOW;
      out.decidedBy = this.lastConsulted;
    }
    return out;
  }
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
