import type { InterceptorRegistration, Verdict, Warning } from './types.ts';
import { isPermit, severity } from './validate-verdict.ts';

/**
 * One interceptor's position in the composition (§6.3, §7.3). `returned` is
 * what the record summarizes; `effective` is what composes (a transform at a
 * point that forbids it composes as a deny).
 */
export interface Slot {
  index: number;
  returned: Verdict;
  effective: Verdict;
  /** A §5.2 transform-application failure: it never becomes `decided_by` (§10.3). */
  nullDecider: boolean;
}

/**
 * §7.3 winner: highest severity; ties between blocks go to the lowest index;
 * among transforms the last one wins (the sequential fold order).
 */
export function pickWinner(slots: readonly Slot[]): Slot | null {
  let best: Slot | null = null;
  for (const s of slots) {
    if (!best) {
      best = s;
      continue;
    }
    const a = severity(s.effective);
    const b = severity(best.effective);
    if (a > b || (a === b && a === 1)) best = s;
  }
  return best;
}

/** §7.3: first-seen-ordered union; equal iff both reason and message are equal. */
export function unionWarnings(verdicts: readonly Verdict[]): Warning[] {
  const out: Warning[] = [];
  for (const v of verdicts) {
    for (const w of v.warnings ?? []) {
      if (!out.some((o) => o.reason === w.reason && o.message === w.message)) out.push(w);
    }
  }
  return out;
}

/** §7.3: first-seen-ordered union of labels from permit verdicts. */
export function unionLabels(verdicts: readonly Verdict[]): string[] {
  const seen = new Set<string>();
  for (const v of verdicts) {
    if (!isPermit(v)) continue;
    for (const l of v.result_labels ?? []) seen.add(l);
  }
  return [...seen];
}

/** The combined verdict: the winner with unioned metadata (labels dropped unless it proceeds). */
export function combine(
  winner: Verdict,
  returned: readonly Verdict[],
  proceeds: boolean,
): { verdict: Verdict; labels: string[] } {
  const verdict: Verdict = { ...winner };
  delete verdict.warnings;
  delete verdict.result_labels;
  const warnings = unionWarnings([...returned, winner]);
  if (warnings.length > 0) verdict.warnings = warnings;
  const labels = proceeds ? unionLabels([...returned, winner]) : [];
  if (labels.length > 0) verdict.result_labels = labels;
  return { verdict, labels };
}

/** §5.4: each permit's labels under its interceptor's namespace (or the host's default). */
export function labelsByNamespace(
  slots: readonly Slot[],
  s: { interceptors: readonly InterceptorRegistration[]; namespace: string },
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const slot of slots) {
    const labels = slot.returned.decision !== 'deny' ? slot.returned.result_labels : undefined;
    if (!labels?.length) continue;
    const ns = s.interceptors[slot.index].namespace ?? s.namespace;
    const list = out[ns] ?? [];
    for (const l of labels) if (!list.includes(l)) list.push(l);
    out[ns] = list;
  }
  return out;
}
