const TIMED_OUT = Symbol('timed out');
const NEVER_ABORTED = new AbortController().signal;

export type Timed<T> =
  | { ok: true; value: T }
  | { ok: false; timedOut: true }
  | { ok: false; timedOut: false; error: unknown };

/**
 * Run `fn` (sync or async) under a timeout. A sync throw and a rejection are
 * the same failure; on timeout the signal aborts and a late answer is ignored.
 * A synchronous answer comes back synchronously: no timer, no promise.
 */
export function withTimeout<T>(
  fn: (signal: AbortSignal) => T | Promise<T>,
  ms: number,
  wantsSignal = true,
): Timed<T> | Promise<Timed<T>> {
  // Creating an AbortSignal costs more than a typical allow verdict: only
  // callers that take one get a live signal.
  const controller = wantsSignal ? new AbortController() : null;
  let first: T | Promise<T>;
  try {
    first = fn(controller ? controller.signal : NEVER_ABORTED);
  } catch (error) {
    return { ok: false, timedOut: false, error };
  }
  if (!isThenable(first)) return { ok: true, value: first };
  return race(first, ms, controller);
}

async function race<T>(
  pending: Promise<T>,
  ms: number,
  controller: AbortController | null,
): Promise<Timed<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    const value = await Promise.race([pending, deadline]);
    if (value === TIMED_OUT) {
      controller?.abort();
      return { ok: false, timedOut: true };
    }
    return { ok: true, value: value as T };
  } catch (error) {
    return { ok: false, timedOut: false, error };
  } finally {
    clearTimeout(timer);
  }
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return (
    typeof value === 'object' && value !== null && typeof (value as Promise<T>).then === 'function'
  );
}

/**
 * A payload-free description of a thrown value: its type name, never its
 * message (§6.3 — an exception string may carry target content).
 */
export function errorTypeName(error: unknown): string {
  if (error instanceof Error) {
    const name = error.constructor?.name;
    return typeof name === 'string' && /^[A-Za-z_$][\w$]{0,63}$/.test(name) ? name : 'Error';
  }
  return error === null ? 'null' : typeof error;
}
