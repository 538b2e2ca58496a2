import { ValueDomainError } from './errors.ts';
import { findViolation } from './domain-violation.ts';
import { type ScanStats, scanValue } from './value-domain.ts';
import { DEFAULTS } from './vocabulary.ts';

/**
 * RFC 8785 (JCS) canonical JSON, the preimage of the jcs-sha256 identity
 * (§10.2): members sorted by UTF-16 code units, numbers per ECMA-262
 * Number::toString, minimal escapes, no whitespace.
 *
 * Written here rather than delegated to `canonicalize` for speed (that package
 * costs 4–5× JSON.stringify); the property tests keep `canonicalize` as the
 * byte-for-byte oracle. The rules it leans on:
 * - JSON.stringify of a well-formed string is exactly the RFC 8785 string form
 *   (short escapes for \b \f \n \r \t \" \\, lowercase \u00XX for the other
 *   controls, everything else literal);
 * - JSON.stringify of a finite number is Number::toString, with -0 as "0";
 * - Array.prototype.sort with no comparator orders by UTF-16 code units.
 *
 * Strategy: one allocation-free scan (value-domain.ts) decides "in the domain
 * or not" and collects the distinct keys. When there are few distinct keys
 * relative to the members, JSON.stringify with the sorted key list as its
 * property list emits every object's members in that order at native speed.
 * Otherwise (a document with many distinct keys would make that quadratic,
 * and a "__proto__" key would read the prototype) a hand-written serializer
 * does the same job. On a violation a second, slower walk finds the first
 * one and its path, so the happy path never pays for path bookkeeping.
 */
export function canonicalJson(value: unknown, opts?: { maxDepth?: number }): string {
  const maxDepth = opts?.maxDepth ?? DEFAULTS.maxDepth;
  const stats = scanValue(value, maxDepth, { collectKeys: true });
  if (stats === null) {
    const violation = findViolation(value, { maxBytes: Number.POSITIVE_INFINITY, maxDepth });
    throw new ValueDomainError(violation?.message ?? STACK_EXHAUSTED);
  }
  const keys = propertyList(stats);
  try {
    return keys ? JSON.stringify(value, keys) : serializeSorted(value);
  } catch (error) {
    if (error instanceof RangeError) throw new ValueDomainError(STACK_EXHAUSTED);
    throw error;
  }
}

// Only reachable when a caller raised maxDepth past what the call stack holds.
const STACK_EXHAUSTED =
  'nesting is too deep to canonicalize on this stack; keep maxDepth near the default of 128 (§12.3)';

const PLAIN: Record<string, unknown> = {};

/** The sorted distinct keys, when handing them to JSON.stringify is cheap and exact. */
function propertyList(stats: ScanStats): string[] | null {
  const keys = stats.keys;
  // Too many distinct keys to have been collected, or JSON.stringify would
  // look every listed key up on every object for little gain.
  if (keys === null || keys.size * stats.objects > 8 * stats.members + 4096) return null;
  // A listed key an object lacks is read through Object.prototype: harmless
  // for its methods (functions serialize to nothing), wrong for __proto__.
  for (const key of keys) {
    const inherited = PLAIN[key];
    if (inherited !== undefined && typeof inherited !== 'function') return null;
  }
  return [...keys].sort();
}

/**
 * The path without a property list: sorts each object's own keys. Exported
 * for the oracle tests only; it trusts that the value already passed scanValue.
 */
export function serializeSorted(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    let out = `[${serializeSorted(value[0])}`;
    for (let i = 1; i < value.length; i++) out += `,${serializeSorted(value[i])}`;
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(object).sort()) {
    const member = object[key];
    // An undefined member is an absent member (JSON.stringify, RFC 8785 libraries).
    if (member !== undefined) parts.push(`${JSON.stringify(key)}:${serializeSorted(member)}`);
  }
  return `{${parts.join(',')}}`;
}
