/**
 * Scalar helpers of the value domain (§4.4): lone-surrogate detection, the
 * UTF-8 size of a JSON string or number literal (for the §12.3 size bound),
 * and the location segment error messages name a member by.
 */

import { utf8Length } from './utf8.ts';

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
  let bytes = utf8Length(s) + 2;
  if (NEEDS_ESCAPE.test(s)) {
    for (const match of s.matchAll(ESCAPED)) {
      // Short escapes (\n, \") add one byte; \u00XX adds five.
      bytes += SHORT_ESCAPES.has(match[0]) ? 1 : 5;
    }
  }
  return bytes;
}

/** UTF-8 length of the JSON text of a number (ECMA-262 Number::toString). */
export function numberBytes(n: number): number {
  // Number::toString is pure ASCII; -0 serializes as "0".
  return Object.is(n, -0) ? 1 : String(n).length;
}
