import type { TransformSpec, Verdict as VerdictShape, Warning } from './types.ts';

/** The verdict shape (§5); the same name is also the constructor object below. */
export type Verdict = VerdictShape;

type Extras = Omit<VerdictShape, 'decision' | 'transform' | 'approval'>;

/**
 * Constructors for the three-verdict vocabulary (§5), including the §5.1
 * sugar: `warn` is an allow with a warning, `escalate` a deny with an empty
 * approval block (a liftable deny).
 */
export const Verdict = Object.freeze({
  allow(extras: Extras = {}): VerdictShape {
    return { ...extras, decision: 'allow' };
  },
  deny(reason?: string, extras: Extras = {}): VerdictShape {
    return withReason({ ...extras, decision: 'deny' }, reason);
  },
  transform(path: string, value: unknown, extras: Extras = {}): VerdictShape {
    const transform: TransformSpec = { path, value };
    return { ...extras, decision: 'transform', transform };
  },
  /** §5.1: there is no warn decision; this is allow with a `warnings` entry. */
  warn(reason?: string, message?: string, extras: Extras = {}): VerdictShape {
    const warning: Warning = {};
    if (reason !== undefined) warning.reason = reason;
    if (message !== undefined) warning.message = message;
    return { ...extras, decision: 'allow', warnings: [...(extras.warnings ?? []), warning] };
  },
  /** §5.1: there is no escalate decision; this is a deny carrying an approval block. */
  escalate(
    reason?: string,
    extras: Extras & { approval?: Record<string, unknown> } = {},
  ): VerdictShape {
    const { approval, ...rest } = extras;
    return withReason({ ...rest, decision: 'deny', approval: approval ?? {} }, reason);
  },
});

function withReason(v: VerdictShape, reason: string | undefined): VerdictShape {
  if (reason !== undefined) v.reason = reason;
  return v;
}
