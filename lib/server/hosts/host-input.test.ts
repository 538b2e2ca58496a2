import { describe, expect, it } from 'vitest';
import { redactPaths } from '@checkpoint/agent-hooks';
import { checkRedactionPaths, type FieldErrors } from './host-input';

/** The validator and the engine share one §5.2 grammar (path-grammar.abnf). */
function check(raw: unknown): { paths: string[]; fields: FieldErrors } {
  const fields: FieldErrors = {};
  return { paths: checkRedactionPaths(raw, fields), fields };
}

describe('redaction paths (§5.2 grammar, engine implementation)', () => {
  it('accepts hyphens, leading digits and leading-zero indexes, stored canonically', () => {
    const { paths, fields } = check(
      '$target.order-id\n$target["9lives"]\n$target.0\n$target.items[007]\n$target.order-id',
    );
    expect(fields).toEqual({});
    expect(paths).toEqual(['$target.order-id', '$target.9lives', '$target.0', '$target.items[7]']);
    // Whatever the validator saves, the engine's redactor accepts.
    expect(() => redactPaths(paths)).not.toThrow();
  });

  const refused: Array<[string, RegExp]> = [
    ['$target["with space"]', /Line 1 .*offset 13.*found U\+0020/],
    ['$target["a.b"]', /offset 10.*found "\." \(U\+002E\)/],
    ['$target["é"]', /offset 9.*found "é" \(U\+00E9\)/],
    ['$target[""]', /offset 9/],
    ['$target.', /offset 8.*found the end of the path/],
    ['$target[-1]', /offset 8.*found "-"/],
    ['$target.ok\n$target.a b', /Line 2 .*offset 9/],
  ];
  for (const [raw, message] of refused) {
    it(`refuses ${JSON.stringify(raw)}, saying where and why`, () => {
      const { paths, fields } = check(raw);
      expect(paths).toEqual([]);
      expect(fields.redactionPaths.code).toBe('redaction_path_invalid');
      expect(fields.redactionPaths.message).toMatch(message);
      expect(fields.redactionPaths.message).toContain('cannot be addressed by a §5.2 path');
    });
  }

  it('keeps the root rules: not rooted, and the deprecated alias', () => {
    expect(check('$targets.x').fields.redactionPaths.message).toMatch(/must start with \$target/);
    expect(check('$policy_target.x').fields.redactionPaths.message).toMatch(/deprecated/);
  });
});
