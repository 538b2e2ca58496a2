import { ValueDomainError } from './errors';
import { INTEGER_BEYOND_2_53, isDomainMember, isDomainNumber } from './number-domain';
import { DEFAULTS } from './vocabulary';

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

type Frame = { value: object; depth: number; parent: Frame | null; segment: string };

/**
 * Walks the value iteratively (a hostile depth cannot overflow the stack)
 * and returns the first violation, or undefined. The serialized size is
 * summed as the UTF-8 length of the JSON text without ever building it.
 */
export function findViolation(value: unknown, limits: ValueDomainLimits): Violation | undefined {
  const size = { bytes: 0 };
  const root = scalarOrContainer(value, '$', '', null, size, limits, true);
  if (root !== undefined) return root;
  if (value === null || typeof value !== 'object') return overSize(size, limits, null);

  const stack: Frame[] = [{ value, depth: 1, parent: null, segment: '$' }];
  if (limits.maxDepth < 1) return depthViolation(stack[0], limits.maxDepth);
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const found = Array.isArray(frame.value)
      ? walkArray(frame, stack, size, limits)
      : walkObject(frame, stack, size, limits);
    if (found) return found;
  }
  return undefined;
}

function walkArray(
  frame: Frame,
  stack: Frame[],
  size: { bytes: number },
  limits: ValueDomainLimits,
): Violation | undefined {
  const array = frame.value as unknown[];
  // `[` `]` and the commas between members.
  size.bytes += 2 + Math.max(0, array.length - 1);
  for (let i = 0; i < array.length; i++) {
    const found = visitChild(frame, `[${i}]`, i, array[i], stack, size, limits, true);
    if (found) return found;
  }
  return overSize(size, limits, frame);
}

function walkObject(
  frame: Frame,
  stack: Frame[],
  size: { bytes: number },
  limits: ValueDomainLimits,
): Violation | undefined {
  const object = frame.value as Record<string, unknown>;
  let members = 0;
  size.bytes += 2;
  for (const key of Object.keys(object)) {
    const member = object[key];
    // JSON has no `undefined`: an undefined member is an absent member, as
    // JSON.stringify and RFC 8785 implementations treat it.
    if (member === undefined) continue;
    const segment = memberSegment(key);
    if (!isWellFormed(key)) {
      return at(
        frame,
        segment,
        'object key contains a lone surrogate; send well-formed UTF-16 (§4.4)',
      );
    }
    size.bytes += stringBytes(key) + 1 + (members > 0 ? 1 : 0);
    members++;
    const found = visitChild(frame, segment, key, member, stack, size, limits, false);
    if (found) return found;
  }
  return overSize(size, limits, frame);
}

function visitChild(
  frame: Frame,
  segment: string,
  key: string | number,
  child: unknown,
  stack: Frame[],
  size: { bytes: number },
  limits: ValueDomainLimits,
  inArray: boolean,
): Violation | undefined {
  const scalar = scalarOrContainer(child, segment, key, frame, size, limits, inArray);
  if (scalar !== undefined) return scalar;
  if (child !== null && typeof child === 'object') {
    const next: Frame = { value: child, depth: frame.depth + 1, parent: frame, segment };
    if (next.depth > limits.maxDepth) return depthViolation(next, limits.maxDepth);
    stack.push(next);
  }
  return undefined;
}

/** Checks a scalar (adding its size) or a container's type; undefined means "fine so far". */
function scalarOrContainer(
  value: unknown,
  segment: string,
  key: string | number,
  parent: Frame | null,
  size: { bytes: number },
  limits: ValueDomainLimits,
  inArray: boolean,
): Violation | undefined {
  const where = (message: string) => at(parent, segment, message);
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) {
        return where('string contains a lone surrogate; send well-formed UTF-16 (§4.4)');
      }
      size.bytes += stringBytes(value);
      return overSize(size, limits, parent);
    case 'number':
      if (!Number.isFinite(value)) {
        return where('non-finite number (NaN or Infinity) is not JSON; reject it upstream (§4.4)');
      }
      // §10.2: 2^53 ≤ |x| < 1e21 prints as a digit string no reader holds exactly,
      // unless the JSON-text funnel accepted it on its token (number-domain.ts).
      if (parent === null ? !isDomainNumber(value) : !isDomainMember(parent.value, key, value)) {
        return where(INTEGER_BEYOND_2_53);
      }
      size.bytes += numberBytes(value);
      return undefined;
    case 'boolean':
      size.bytes += value ? 4 : 5;
      return undefined;
    case 'object':
      if (value === null) {
        size.bytes += 4;
        return undefined;
      }
      if (!isJsonContainer(value)) {
        return where(
          `${describeObject(value)} is not a JSON value; pass plain objects and arrays only`,
        );
      }
      return undefined;
    case 'undefined':
      return where(
        inArray || parent === null
          ? 'undefined is not a JSON value; use null'
          : 'undefined is not a JSON value',
      );
    case 'bigint':
      return where('bigint is not a JSON value; string-encode 64-bit identifiers, see §4.4');
    default:
      return where(`${typeof value} is not a JSON value`);
  }
}

/** Plain objects and arrays only: a Date, Map or class instance would not round-trip. */
export function isJsonContainer(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describeObject(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? `a ${name} object` : 'a non-plain object';
}

function depthViolation(frame: Frame, maxDepth: number): Violation {
  return at(
    frame.parent,
    frame.segment,
    `nesting exceeds the depth limit of ${maxDepth} (or the value is cyclic); flatten it (§12.3)`,
  );
}

function overSize(
  size: { bytes: number },
  limits: ValueDomainLimits,
  frame: Frame | null,
): Violation | undefined {
  if (size.bytes <= limits.maxBytes) return undefined;
  return {
    path: frame ? pathOf(frame) : '$',
    message: `serialized value exceeds the size limit of ${limits.maxBytes} bytes (§12.3)`,
  };
}

function at(parent: Frame | null, segment: string, message: string): Violation {
  const path = parent === null ? segment : pathOf(parent) + segment;
  return { path, message: `${message} at ${path}` };
}

function pathOf(frame: Frame): string {
  const segments: string[] = [];
  for (let f: Frame | null = frame; f !== null; f = f.parent) segments.push(f.segment);
  return segments.reverse().join('');
}

type WellFormedString = { isWellFormed(): boolean; toWellFormed(): string };

/**
 * True when `s` has no lone surrogate. String.prototype.isWellFormed (Node 20)
 * is native and far faster than a regex scan; the cast is only because the
 * project's TypeScript lib stops at ES2023.
 */
export function isWellFormed(s: string): boolean {
  return (s as unknown as WellFormedString).isWellFormed();
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_SEGMENT_CHARS = 64;

/** A §5.2-style path segment; long keys are cut so a message never carries much key text. */
export function memberSegment(key: string): string {
  if (IDENTIFIER.test(key) && key.length <= MAX_SEGMENT_CHARS) return `.${key}`;
  const shown = key.length > MAX_SEGMENT_CHARS ? `${key.slice(0, MAX_SEGMENT_CHARS)}…` : key;
  return `[${JSON.stringify(isWellFormed(shown) ? shown : (shown as unknown as WellFormedString).toWellFormed())}]`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these controls.
const NEEDS_ESCAPE = /[\u0000-\u001f"\\]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these controls.
const ESCAPED = /[\u0000-\u001f"\\]/g;
const SHORT_ESCAPES = new Set(['"', '\\', '\b', '\f', '\n', '\r', '\t']);

/** UTF-8 length of the JSON string literal for `s` (quotes and escapes included). */
export function stringBytes(s: string): number {
  let bytes = Buffer.byteLength(s, 'utf8') + 2;
  if (NEEDS_ESCAPE.test(s)) {
    for (const match of s.matchAll(ESCAPED)) {
      // Short escapes (\n, \") add one byte; \u00XX adds five.
      bytes += SHORT_ESCAPES.has(match[0]) ? 1 : 5;
    }
  }
  return bytes;
}

function numberBytes(n: number): number {
  // Number::toString is pure ASCII; -0 serializes as "0".
  return Object.is(n, -0) ? 1 : String(n).length;
}
