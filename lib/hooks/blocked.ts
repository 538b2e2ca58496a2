import type { EmissionResult } from './types.ts';

/** Opt-in (`throwOnBlock`): thrown by `emit()` when the action may not proceed; carries the result. */
export class InterceptionBlocked extends Error {
  readonly code = 'interception_blocked' as const;
  constructor(readonly result: EmissionResult) {
    const reason = result.verdict.reason;
    super(`${result.record.interception_point} blocked${reason ? `: ${reason}` : ''}`);
    this.name = 'InterceptionBlocked';
  }
}
