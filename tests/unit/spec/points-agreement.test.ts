import { describe, expect, it } from 'vitest';
import { INTERCEPTION_POINTS as ENGINE_POINTS } from '@checkpoint/agent-hooks';
import { contextSchemaId, INTERCEPTION_POINTS, loadSchemas } from '@/spec';

/**
 * spec/ defines the interception points itself, from its own §3 schema; the
 * engine's vocabulary must agree with it (the direction is spec → engine,
 * never the engine defining the spec).
 */
describe('interception points (§3)', () => {
  it('the engine lists exactly the spec’s points, in the spec’s order', () => {
    expect([...ENGINE_POINTS]).toEqual([...INTERCEPTION_POINTS]);
  });

  it('every point has its own loaded context schema (§4)', () => {
    const ids = new Set(loadSchemas().map((schema) => schema.$id));
    for (const point of INTERCEPTION_POINTS) expect(ids).toContain(contextSchemaId(point));
  });
});
