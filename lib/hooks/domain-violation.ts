import { INTEGER_BEYOND_2_53, isDomainMember, isDomainNumber } from './number-domain.ts';
import { isWellFormed, memberSegment, numberBytes, stringBytes } from './json-strings.ts';
import type { ValueDomainLimits, Violation } from './value-domain.ts';

/**
 * The authoritative, iterative walk behind the value-domain check (§4.4,
 * §12.3): it runs only after the fast recursive scan said "no", and says
 * where and why. A hostile depth cannot overflow the stack here.
 */

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
