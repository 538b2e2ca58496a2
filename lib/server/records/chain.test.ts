import { describe, expect, it } from 'vitest';
import { chainHashOf } from './chain';
import { findGaps } from './verify';

// Expected values from coreutils: printf '%s' '{"a":1}' | sha256sum, then
// printf '%s%s' "<that>" '{"b":[true,null]}' | sha256sum.
const FIRST = '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862';
const SECOND = 'b8dc5469c5c4b2781c4af870380cfdefdf78f26c7fd73c20ba4f006900e2bca3';

describe('chainHashOf (SHA-256 over previous link + canonical JSON)', () => {
  it('starts from an empty previous link', () => {
    expect(chainHashOf(null, '{"a":1}')).toBe(FIRST);
  });

  it('prefixes the previous link, hex, no separator', () => {
    expect(chainHashOf(FIRST, '{"b":[true,null]}')).toBe(SECOND);
  });
});

describe('findGaps', () => {
  it('reports holes between stored sequences and a late start, ignoring repeats and order', () => {
    expect(findGaps([5, 0, 1, 1, 3, 9])).toEqual([
      { after: 1, before: 3 },
      { after: 3, before: 5 },
      { after: 5, before: 9 },
    ]);
    expect(findGaps([2, 3])).toEqual([{ after: -1, before: 2 }]);
    expect(findGaps([0, 1, 2])).toEqual([]);
    expect(findGaps([])).toEqual([]);
  });
});
