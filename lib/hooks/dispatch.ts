import type { Slot } from './aggregate.ts';
import { isolatedView } from './isolation.ts';
import { toPlain } from './plain.ts';
import { errorTypeName, type Timed, withTimeout } from './timeout.ts';
import type { AgentContext, InterceptorRegistration } from './types.ts';
import { hostDeny, validateVerdict } from './validate-verdict.ts';
import { HOST_ERRORS, TRANSFORM_FORBIDDEN_POINTS } from './vocabulary.ts';

export interface DispatchLimits {
  interceptorTimeoutMs: number;
  maxDepth: number;
}

/**
 * Invoke one interceptor on its own copy-on-write view (§7) under the
 * timeout, and map every failure to the deny that takes its slot (§6.3).
 */
export function dispatch(
  reg: InterceptorRegistration,
  index: number,
  context: AgentContext,
  limits: DispatchLimits,
): Slot | Promise<Slot> {
  const view = isolatedView(context);
  // An interceptor declaring a second parameter gets a signal that aborts at its timeout.
  const run = withTimeout(
    (signal) => reg.intercept(view, signal),
    limits.interceptorTimeoutMs,
    reg.intercept.length >= 2,
  );
  // A synchronous interceptor is settled synchronously: the common case pays for no promise.
  return run instanceof Promise
    ? run.then((r) => settle(r, index, context, limits))
    : settle(run, index, context, limits);
}

function settle(
  run: Timed<unknown>,
  index: number,
  context: AgentContext,
  limits: DispatchLimits,
): Slot {
  if (!run.ok) {
    const verdict = run.timedOut
      ? hostDeny(
          HOST_ERRORS.interceptorTimeout,
          `interceptor exceeded ${limits.interceptorTimeoutMs} ms`,
        )
      : hostDeny(HOST_ERRORS.interceptorFailed, `interceptor raised ${errorTypeName(run.error)}`);
    return failed(index, verdict);
  }
  let plain: unknown;
  try {
    // Copying also detaches the verdict from the interceptor's view.
    plain = toPlain(run.value, limits.maxDepth);
  } catch {
    return failed(
      index,
      hostDeny(HOST_ERRORS.interceptorFailed, 'interceptor returned a non-JSON value'),
    );
  }
  const checked = validateVerdict(plain);
  if (!checked.ok) return failed(index, hostDeny(checked.reason, checked.message));
  const verdict = checked.verdict;
  if (
    verdict.decision === 'transform' &&
    (TRANSFORM_FORBIDDEN_POINTS as readonly string[]).includes(context.interception_point)
  ) {
    // §4.3: rejected by the host; a §5.2 failure, so it never becomes decided_by.
    const deny = hostDeny(
      HOST_ERRORS.transformTargetForbidden,
      `${context.interception_point} forbids transform (§4.3)`,
    );
    return { index, returned: verdict, effective: deny, nullDecider: true };
  }
  return { index, returned: verdict, effective: verdict, nullDecider: false };
}

function failed(index: number, verdict: ReturnType<typeof hostDeny>): Slot {
  return { index, returned: verdict, effective: verdict, nullDecider: false };
}
