import { describe, expect, it } from 'vitest';
import { sha256Hex } from './validate-record';

// Expected values from coreutils: printf '%s' '<text>' | sha256sum.
describe('sha256Hex (a record content hash)', () => {
  it('hashes the UTF-8 bytes of the text, lowercase hex', () => {
    expect(sha256Hex('{"a":1}')).toBe(
      '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    );
    expect(sha256Hex('é 中文 🙂')).toBe(
      '08f7d4e27802a7d930d2d27a4d62277315840745cf34ef94ceaf2e5947c2fac4',
    );
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
