/**
 * §4.4/§10.2: a fraction/exponent token from JSON text keeps its lexical
 * verdict through the copies the engine makes of a parsed context (a
 * transform's copy-on-write, the approval redactor), while a value written in
 * later is judged by value.
 */
import { describe, expect, it } from 'vitest';
import { jcsSha256 } from './identity.ts';
import { parseJsonText } from './json-text.ts';
import { redactPaths } from './redaction.ts';
import { applyTransform } from './transform.ts';
import type { AgentContext } from './types.ts';

const TEXT = `{"spec":"agent-hooks/0.1","interception_point":"pre_tool_call","timestamp":"2026-06-19T14:03:11.123Z","sequence":3,"agent":{"id":"a","framework":"ctk"},"session":{"id":"s"},"tool_call":{"id":"c1","name":"pay","args":{"amount":1e16,"note":"x","rows":[1e16,"y"]}},"target":{"amount":1e16,"note":"x","rows":[1e16,"y"]}}`;

function parsed(): AgentContext {
  return parseJsonText(TEXT) as AgentContext;
}

describe("token verdicts survive the engine's copies (§10.2)", () => {
  it('a parsed context with a 1e16 exponent token has an identity', () => {
    expect(jcsSha256.compute(parsed())).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('a transform of a sibling member keeps the identity computable', () => {
    const out = applyTransform(parsed(), { path: '$target.note', value: 'z' });
    expect(out.ok).toBe(true);
    if (out.ok) expect(jcsSha256.compute(out.context)).toMatch(/^sha256:/);
    const inArray = applyTransform(parsed(), { path: '$target.rows[1]', value: 'z' });
    expect(inArray.ok).toBe(true);
    if (inArray.ok) expect(jcsSha256.compute(inArray.context)).toMatch(/^sha256:/);
  });

  it('a redaction of a sibling member keeps the identity computable', () => {
    const redacted = redactPaths(['$target.note', '$target.rows[1]'])(parsed());
    expect(jcsSha256.compute(redacted)).toMatch(/^sha256:/);
  });

  it('the same value written in-process is judged by value: out of the domain', () => {
    const out = applyTransform(parsed(), { path: '$target.note', value: 1e16 });
    expect(out.ok).toBe(true);
    if (out.ok) expect(() => jcsSha256.compute(out.context)).toThrow(/2\^53/);
  });
});
