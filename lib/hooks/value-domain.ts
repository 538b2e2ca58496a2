import { ValueDomainError } from './errors.ts';
import { findViolation, isJsonContainer } from './domain-violation.ts';
import { isWellFormed, numberBytes, stringBytes } from './json-strings.ts';
import { isDomainMember, isDomainNumber } from './number-domain.ts';
import { DEFAULTS } from './vocabulary.ts';

/**
 * The §4.4 value domain and the §12.3 resource bounds, checked over an
 * in-memory value. Nothing is normalized: a value is accepted as supplied or
 * rejected with a message that names the JSON path and a remediation, never
 * the offending value itself (§6.3, §14).
 *
 * Depth counts nested containers: `1` and `{}` are depth 0 and 1, `[[1]]` is
 * depth 2. The same rule holds in canonical-json.ts and json-text.ts, so all
 * three funnels agree on where the §12.3 bound falls.
 */

export type ValueDomainLimits = { maxBytes: number; maxDepth: number };

export const DEFAULT_LIMITS: Readonly<ValueDomainLimits> = Object.freeze({
  maxBytes: DEFAULTS.maxContextBytes,
  maxDepth: DEFAULTS.maxDepth,
});

/** One reason a value is outside the domain, with where it was found. */
export type Violation = { path: string; message: string };

/** Throws ValueDomainError for the first violation; returns when the value is in the domain. */
export function checkValueDomain(
  value: unknown,
  limits: Partial<ValueDomainLimits> = DEFAULT_LIMITS,
): void {
  const bounds = { ...DEFAULT_LIMITS, ...limits };
  const scan = scanValue(value, bounds.maxDepth, { measure: true, maxBytes: bounds.maxBytes });
  if (scan && scan.bytes <= bounds.maxBytes) return;
  // The fast scan only says "no" (or ran out of stack under a caller-raised
  // maxDepth); the iterative walk is authoritative and says where and why.
  const violation = findViolation(value, bounds);
  if (violation) throw new ValueDomainError(violation.message);
}

/** What a successful fast scan learned about a value. */
export type ScanStats = {
  /** UTF-8 length of the value's JSON text. */
  bytes: number;
  objects: number;
  members: number;
  /** Every distinct object key, when asked for; null again past MAX_COLLECTED_KEYS. */
  keys: Set<string> | null;
  /** Whether `bytes` is being summed (it costs a UTF-8 count per string). */
  measure: boolean;
  /** When measuring, the scan gives up as soon as `bytes` passes this. */
  maxBytes: number;
};

/**
 * One recursive pass that decides whether the value is in the domain and
 * measures it, allocating nothing per value. Returns null on any violation
 * (including a stack overflow when a caller raised maxDepth very high); the
 * caller then runs findViolation for the message.
 */
export function scanValue(
  value: unknown,
  maxDepth: number,
  opts: { measure?: boolean; collectKeys?: boolean; maxBytes?: number },
): ScanStats | null {
  const stats: ScanStats = {
    bytes: 0,
    objects: 0,
    members: 0,
    keys: opts.collectKeys ? new Set() : null,
    measure: opts.measure === true,
    maxBytes: opts.maxBytes ?? Number.POSITIVE_INFINITY,
  };
  try {
    return scan(value, 0, maxDepth, stats) ? stats : null;
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

const MAX_COLLECTED_KEYS = 4096;

function scan(value: unknown, depth: number, maxDepth: number, stats: ScanStats): boolean {
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) return false;
      if (stats.measure) stats.bytes += stringBytes(value);
      // A huge context is refused without walking all of it.
      return stats.bytes <= stats.maxBytes;
    case 'number':
      if (!isDomainNumber(value)) return false;
      if (stats.measure) stats.bytes += numberBytes(value);
      return true;
    case 'boolean':
      stats.bytes += value ? 4 : 5;
      return true;
    case 'object': {
      if (value === null) {
        stats.bytes += 4;
        return true;
      }
      if (depth >= maxDepth) return false;
      if (Array.isArray(value)) {
        stats.bytes += value.length > 0 ? value.length + 1 : 2;
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (item === undefined) return false;
          if (!scan(item, depth + 1, maxDepth, stats) && !vouched(value, i, item, stats)) {
            return false;
          }
        }
        return true;
      }
      if (!isJsonContainer(value)) return false;
      stats.objects++;
      let members = 0;
      const object = value as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        const member = object[key];
        if (member === undefined) continue;
        if (!isWellFormed(key)) return false;
        if (stats.keys !== null) {
          stats.keys.add(key);
          // Past this many distinct keys a property list never pays off (canonical-json.ts).
          if (stats.keys.size > MAX_COLLECTED_KEYS) stats.keys = null;
        }
        if (stats.measure) stats.bytes += stringBytes(key) + 1;
        members++;
        if (!scan(member, depth + 1, maxDepth, stats) && !vouched(object, key, member, stats)) {
          return false;
        }
      }
      stats.members += members;
      stats.bytes += members > 0 ? members + 1 : 2;
      return true;
    }
    default:
      return false;
  }
}

/**
 * Only consulted after `scan` said no: a number the JSON-text funnel accepted
 * on its token (number-domain.ts) is in the domain where the funnel put it.
 */
function vouched(container: object, key: string | number, member: unknown, stats: ScanStats) {
  if (typeof member !== 'number' || !isDomainMember(container, key, member)) return false;
  if (stats.measure) stats.bytes += numberBytes(member);
  return true;
}
