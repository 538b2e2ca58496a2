import { describe, expect, it } from 'vitest';
import { lineCounter } from '@/app/components/audit/line-counter';

const bytes = (s: string) => new TextEncoder().encode(s);

/** Feeds `text` in chunks of `size` bytes; returns the lines counted. */
function count(text: string, csv: boolean, size: number): number {
  const c = lineCounter(csv);
  const all = bytes(text);
  let n = 0;
  for (let i = 0; i < all.length; i += size) n += c(all.subarray(i, i + size));
  return n;
}

describe('export progress line counter', () => {
  it('counts JSONL lines however the stream is chunked', () => {
    const text = '{"a":"x\\ny"}\n{"b":1}\n{"c":"\\"q\\""}\n';
    for (const size of [1, 2, 3, 7, 100]) expect(count(text, false, size)).toBe(3);
  });

  it('does not count newlines inside quoted CSV fields, escaped quotes included', () => {
    const text = 'id,reason\r\n1,"two\r\nlines"\r\n2,"say ""hi""\nthere"\r\n3,plain\r\n';
    for (const size of [1, 2, 5, 64]) expect(count(text, true, size)).toBe(4);
    // Read as JSONL (no quoting rules) the same bytes hold 6 newlines.
    expect(count(text, false, 64)).toBe(6);
  });

  it('counts only finished lines', () => {
    expect(count('a,b\r\n1,2', true, 3)).toBe(1);
  });
});
