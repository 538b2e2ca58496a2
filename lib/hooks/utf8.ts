/**
 * UTF-8 sizes and bytes without Node's Buffer, so the engine runs unchanged
 * in Node and in a browser bundle. A lone surrogate counts as U+FFFD (3
 * bytes), exactly as TextEncoder and Buffer encode it: sizes are taken
 * before (and independently of) the §4.4 lone-surrogate check.
 */

/** UTF-16 units per encodeInto call; the scratch buffer holds their worst case. */
const CHUNK = 16_384;
const BYTES_PER_UNIT = 3;

// Created on first use, never at import (the package is side-effect free).
let encoder: TextEncoder | undefined;
let scratch: Uint8Array | undefined;

function utf8Encoder(): TextEncoder {
  encoder ??= new TextEncoder();
  return encoder;
}

/**
 * The exact UTF-8 length of `s`, without allocating a copy of it. The count
 * comes from the platform's own encoder (TextEncoder.encodeInto into one
 * reused scratch buffer), in chunks that never split a surrogate pair; a
 * JavaScript loop over code units measured several times slower on every
 * size (bench/primitives.ts).
 */
export function utf8Length(s: string): number {
  const text = utf8Encoder();
  scratch ??= new Uint8Array(CHUNK * BYTES_PER_UNIT);
  const n = s.length;
  if (n <= CHUNK) return text.encodeInto(s, scratch).written;
  let bytes = 0;
  for (let i = 0; i < n; ) {
    let end = Math.min(n, i + CHUNK);
    // A pair cut in two would count as two lone surrogates (3 + 3 bytes, not 4).
    if (end < n && isHighSurrogate(s.charCodeAt(end - 1))) end--;
    bytes += text.encodeInto(s.slice(i, end), scratch).written;
    i = end;
  }
  return bytes;
}

/** The UTF-8 bytes of `s` (a fresh array the caller owns). */
export function utf8Bytes(s: string): Uint8Array {
  return utf8Encoder().encode(s);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
