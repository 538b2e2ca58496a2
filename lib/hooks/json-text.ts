import { ValueDomainError } from './errors.ts';
import { INTEGER_BEYOND_2_53, isDomainNumber, vouchNumber } from './number-domain.ts';
import { isWellFormed, memberSegment } from './json-strings.ts';
import { DEFAULT_LIMITS } from './value-domain.ts';
import { utf8Length } from './utf8.ts';
import { MAX_SAFE_INTEGER } from './vocabulary.ts';

/**
 * The funnel for contexts that arrive as JSON text (HTTP bodies, files, the
 * CLI). JSON.parse alone would round 9007199254740993 to ...992 and keep the
 * last of two duplicate keys without a word, so the text is checked first:
 * - the number domain is lexical (§10.2, RFC 8785, number-domain.ts): an
 *   integer token (no fraction, no exponent) beyond ±(2^53−1) is refused,
 *   judged on the token before JSON.parse can round it; a fraction or
 *   exponent token is in the domain whatever its magnitude (1e+21, 1e16,
 *   56.0), unless it overflows to Infinity (1e400);
 * - lone surrogates, raw or escaped (§4.4);
 * - duplicate member names in one object (I-JSON, RFC 7493 §2.3);
 * - size over maxBytes and container nesting over maxDepth (§12.3).
 * All of these throw ValueDomainError (host_error:context_invalid) with a
 * path and a remediation, never the offending text.
 */
export function parseJsonText(
  text: string,
  limits?: { maxBytes?: number; maxDepth?: number },
): unknown {
  const maxBytes = limits?.maxBytes ?? DEFAULT_LIMITS.maxBytes;
  const maxDepth = limits?.maxDepth ?? DEFAULT_LIMITS.maxDepth;
  if (typeof text !== 'string') throw new ValueDomainError('JSON text must be a string');
  // One UTF-16 unit is 1 to 3 UTF-8 bytes: count exactly only when the bounds straddle the limit.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && utf8Length(text) > maxBytes)) {
    throw new ValueDomainError(`JSON text exceeds the size limit of ${maxBytes} bytes (§12.3)`);
  }
  if (!isWellFormed(text)) {
    throw new ValueDomainError(
      'JSON text contains a lone surrogate; send well-formed UTF-8 (§4.4)',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValueDomainError(`invalid JSON: ${syntaxDetail(error)}`);
  }
  // The scanner trusts the text to be valid JSON, which JSON.parse just proved.
  for (const token of scanTokens(text, maxDepth)) vouchToken(value, token);
  return value;
}

/** Where a fraction/exponent token landed whose value alone is outside the domain. */
type BigFloatToken = { segments: (string | number)[]; value: number };

/** Marks the parsed number as accepted on its token (number-domain.ts). */
function vouchToken(root: unknown, token: BigFloatToken): void {
  // A bare top-level number has no container to vouch in: judged by value later.
  if (token.segments.length === 0) return;
  let container = root as Record<string | number, unknown>;
  for (const segment of token.segments.slice(0, -1)) {
    container = container[segment] as Record<string | number, unknown>;
  }
  vouchNumber(container, String(token.segments[token.segments.length - 1]), token.value);
}

/** V8's messages can quote a stretch of the input; keep only the position or token kind. */
function syntaxDetail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message);
  if (position) return `syntax error at position ${position[1]}`;
  if (/Unexpected end/.test(message)) return 'unexpected end of input';
  return 'unexpected token';
}

/**
 * One open object or array. An object keeps its member names in an array
 * (a linear search beats a Set for the usual handful of members) and moves
 * them to a Set once it grows; `key` is the current member, turned into a
 * path segment only if something fails.
 */
type Container = {
  isObject: boolean;
  names: string[];
  nameSet: Set<string> | null;
  key: string;
  index: number;
  expectKey: boolean;
};

const SMALL_OBJECT = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function scanTokens(text: string, maxDepth: number): BigFloatToken[] {
  const stack: Container[] = [];
  const bigFloats: BigFloatToken[] = [];
  // The next backslash, and the next \uD800–\uDFFF escape, at or after the
  // cursor: found once and reused, so asking "does this string have one?"
  // costs nothing per string and never rescans the text.
  const next: NextEscapes = { backslash: -1, surrogate: -1 };
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = scanString(text, i, stack, next);
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      i = scanNumber(text, i, stack, bigFloats);
    } else if (c === 0x7b || c === 0x5b) {
      // `{` or `[`
      if (stack.length >= maxDepth) {
        fail(stack, `nesting exceeds the depth limit of ${maxDepth}; flatten it (§12.3)`);
      }
      const isObject = c === 0x7b;
      stack.push({ isObject, names: [], nameSet: null, key: '', index: 0, expectKey: isObject });
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      i++;
    } else if (c === 0x2c) {
      // `,`: the next member of the innermost container.
      const top = stack[stack.length - 1];
      if (!top.isObject) top.index++;
      else top.expectKey = true;
      i++;
    } else {
      i++;
    }
  }
  return bigFloats;
}

/** Returns the index just past the closing quote. */
function scanString(text: string, start: number, stack: Container[], next: NextEscapes): number {
  let end = text.indexOf('"', start + 1);
  while (text.charCodeAt(end - 1) === BACKSLASH) {
    let run = 0;
    while (text.charCodeAt(end - 1 - run) === BACKSLASH) run++;
    if (run % 2 === 0) break;
    end = text.indexOf('"', end + 1);
  }
  const top = stack[stack.length - 1];
  const isKey = top?.expectKey === true;
  // A key is decoded when escaped (for the duplicate check); any string when
  // it may escape a surrogate, to see whether that surrogate is paired.
  const decode = isKey && nextBackslash(next, text, start) < end;
  const decoded =
    decode || nextSurrogateEscape(next, text, start) < end
      ? (JSON.parse(text.slice(start, end + 1)) as string)
      : null;
  if (decoded !== null && !isWellFormed(decoded)) {
    fail(stack, `${isKey ? 'object key' : 'string'} escapes a lone surrogate (§4.4)`);
  }
  if (isKey) {
    const key = decoded ?? text.slice(start + 1, end);
    top.expectKey = false;
    top.key = key;
    if (isDuplicate(top, key)) {
      fail(stack, 'duplicate object key; I-JSON (RFC 7493) requires unique member names (§4.4)');
    }
  }
  return end + 1;
}

/** Returns the index just past the number token. */
function scanNumber(
  text: string,
  start: number,
  stack: Container[],
  bigFloats: BigFloatToken[],
): number {
  // JSON.parse already vouched for the shape: -? int (. digits)? ([eE] [+-]? digits)?
  let end = text.charCodeAt(start) === 0x2d ? start + 1 : start;
  const intStart = end;
  while (isDigit(text.charCodeAt(end))) end++;
  const intDigits = end - intStart;
  const fraction = text.charCodeAt(end) === 0x2e;
  if (fraction) {
    end++;
    while (isDigit(text.charCodeAt(end))) end++;
  }
  let exponent = false;
  const e = text.charCodeAt(end);
  if (e === 0x65 || e === 0x45) {
    exponent = true;
    end++;
    const sign = text.charCodeAt(end);
    if (sign === 0x2b || sign === 0x2d) end++;
    while (isDigit(text.charCodeAt(end))) end++;
  }
  // Without an exponent, 15 integer digits stay below 10^15 < 2^53: the common
  // case is decided without allocating the token.
  if (!exponent && intDigits <= 15) return end;
  const value = Number(text.slice(start, end));
  if (!Number.isFinite(value)) {
    fail(stack, 'number overflows a double; send it as a string (§4.4)');
  }
  const beyondSafe = value > MAX_SAFE_INTEGER || value < -MAX_SAFE_INTEGER;
  // §10.2: an integer token past ±(2^53−1) is out of the domain. Rounding is
  // monotonic and 2^53−1 is exact, so the double says it as well as the digits.
  if (!fraction && !exponent) {
    if (beyondSafe) fail(stack, INTEGER_BEYOND_2_53);
  } else if (!isDomainNumber(value)) {
    // A fraction/exponent token is in the domain whatever its magnitude, but
    // its value (say 1e16) would be refused in-process: vouch for it.
    bigFloats.push({ segments: pathSegments(stack), value });
  }
  return end;
}

function pathSegments(stack: Container[]): (string | number)[] {
  return stack.map((c) => (c.isObject ? c.key : c.index));
}

type NextEscapes = { backslash: number; surrogate: number };

const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF]/g;

/** Position of the next backslash at or after `from`; Infinity if none. */
function nextBackslash(next: NextEscapes, text: string, from: number): number {
  if (next.backslash < from) {
    const at = text.indexOf('\\', from);
    next.backslash = at === -1 ? Number.POSITIVE_INFINITY : at;
  }
  return next.backslash;
}

/** Position of the next \uD800–\uDFFF escape at or after `from`; Infinity if none. */
function nextSurrogateEscape(next: NextEscapes, text: string, from: number): number {
  if (next.surrogate < from) {
    SURROGATE_ESCAPE.lastIndex = from;
    const match = SURROGATE_ESCAPE.exec(text);
    next.surrogate = match === null ? Number.POSITIVE_INFINITY : match.index;
  }
  return next.surrogate;
}

/** Records a member name; true if the object already had it. */
function isDuplicate(object: Container, key: string): boolean {
  if (object.nameSet !== null) {
    if (object.nameSet.has(key)) return true;
    object.nameSet.add(key);
    return false;
  }
  if (object.names.includes(key)) return true;
  object.names.push(key);
  if (object.names.length > SMALL_OBJECT) object.nameSet = new Set(object.names);
  return false;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function fail(stack: Container[], message: string): never {
  let path = '$';
  for (const container of stack) {
    path += container.isObject ? memberSegment(container.key) : `[${container.index}]`;
  }
  throw new ValueDomainError(`${message} at ${path}`);
}
