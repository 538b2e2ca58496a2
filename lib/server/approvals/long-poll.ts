import 'server-only';
import { AppError } from '../http/api-error';
import { MAX_WAIT_MS } from './wait';

/** `?wait=` in whole seconds; absent means answer at once, above the cap waits the cap. */
export function parseWaitSeconds(raw: string | null): number {
  if (raw === null || raw === '') return 0;
  if (!/^\d{1,6}$/.test(raw)) {
    throw new AppError('wait_invalid', 'wait must be a whole number of seconds (0-30).');
  }
  return Math.min(Number(raw), MAX_WAIT_MS / 1000);
}
