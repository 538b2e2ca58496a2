import { describe, expect, it } from 'vitest';
import { identityWhitelist } from '@/lib/hooks/identity';
import { INTERCEPTION_POINTS, RESERVED_REASONS } from '@checkpoint/agent-hooks';
import reserved from '@/spec/reserved-reasons.json' with { type: 'json' };
import { loadSchemas, SCHEMA_BASE } from '@/spec/index';

type Schema = {
  $id?: string;
  $ref?: string;
  $defs?: Record<string, Schema>;
  required?: string[];
  properties?: Record<string, Schema>;
  type?: string;
};

const byId = new Map(loadSchemas().map((schema) => [schema.$id, schema as Schema]));

/** Follows an absolute `<id>#/$defs/<name>` reference (the only kind per-point schemas use). */
function resolve(schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const [id, pointer] = schema.$ref.split('#');
  const document = byId.get(id)!;
  const name = pointer.replace('/$defs/', '');
  return resolve(document.$defs![name]);
}

describe('spec/reserved-reasons.json (§11)', () => {
  it('lists exactly RESERVED_REASONS, in order, each with a cause', () => {
    expect(reserved.reasons.map((entry) => entry.reason)).toEqual([...RESERVED_REASONS]);
    for (const entry of reserved.reasons) expect(entry.cause.length).toBeGreaterThan(10);
    expect(reserved.prefix).toBe('host_error:');
  });

  it('does not list the reasons §11 removed', () => {
    const listed = reserved.reasons.map((entry) => entry.reason);
    for (const removed of reserved.removed) expect(listed).not.toContain(removed.reason);
  });
});

describe('per-point schemas agree with the jcs-sha256 projection (§10.2)', () => {
  it.each(INTERCEPTION_POINTS)(
    '%s: required set = whitelist, nested required = subfields',
    (point) => {
      const schema = byId.get(`${SCHEMA_BASE}agent-context/${point}.schema.json`)!;
      const whitelist = identityWhitelist(point);
      expect([...schema.required!].sort()).toEqual(Object.keys(whitelist).sort());
      for (const [field, keep] of Object.entries(whitelist)) {
        // target aliases the point's conditional value and is kept whole (§4.3, §10.2).
        if (field === 'target') continue;
        const fieldSchema = resolve(schema.properties![field]);
        if (keep === true) {
          // Kept whole: a schema that required subfields would need a nested whitelist.
          expect(fieldSchema.required).toBeUndefined();
        } else {
          expect(fieldSchema.type).toBe('object');
          expect([...(fieldSchema.required ?? [])].sort()).toEqual([...keep].sort());
        }
      }
    },
  );
});
