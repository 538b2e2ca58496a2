import 'server-only';
import { loadSchemas, type SchemaDocument } from '@/spec';

/**
 * The spec's JSON Schemas (spec/schema, the ones `validateAgainst` compiles)
 * as OpenAPI components. Each keeps every keyword; only what ties it to its
 * file goes: `$id` and `$schema` are dropped (the document's dialect is
 * 2020-12 already), and each `$ref`, relative to the file's `$id`, becomes a
 * pointer into the document (`#/components/schemas/Verdict/$defs/warning`),
 * which every OpenAPI tool resolves.
 */

export type JsonSchema = { [keyword: string]: unknown };

/** Spec file (relative to the project's schema base) → component name. */
export const SPEC_COMPONENTS = {
  'agent-context.schema.json': 'AgentContext',
  'interception-point.schema.json': 'InterceptionPoint',
  'verdict.schema.json': 'Verdict',
  'approval-request.schema.json': 'ApprovalRequest',
  'approval-resolution.schema.json': 'ApprovalResolution',
  'interception-record.schema.json': 'InterceptionRecord',
} as const;

export type SpecComponentName = (typeof SPEC_COMPONENTS)[keyof typeof SPEC_COMPONENTS];

export const componentRef = (name: string) => `#/components/schemas/${name}`;

/** The component a spec `$id` (without fragment) becomes, or undefined when not published. */
function componentOf(id: string): string | undefined {
  const file = Object.keys(SPEC_COMPONENTS).find((f) => id.endsWith(`/${f}`));
  return file ? SPEC_COMPONENTS[file as keyof typeof SPEC_COMPONENTS] : undefined;
}

function rewriteRefs(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, base));
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === '$ref' && typeof member === 'string') {
      const url = new URL(member, base);
      const fragment = decodeURIComponent(url.hash.slice(1));
      url.hash = '';
      const name = componentOf(url.href);
      // A reference to a schema the document does not publish would dangle.
      if (!name)
        throw new Error(`spec schema ${base}: $ref ${member} is not a published component`);
      out.$ref = `${componentRef(name)}${fragment}`;
    } else {
      out[key] = rewriteRefs(member, base);
    }
  }
  return out;
}

/** One spec schema as a component: refs rewritten, `$id`/`$schema` dropped. */
export function toComponent(schema: SchemaDocument): JsonSchema {
  const { $id, $schema: _dialect, ...rest } = schema;
  return rewriteRefs(rest, $id) as JsonSchema;
}

/** The published spec schemas, by component name. */
export function specComponents(): Record<SpecComponentName, JsonSchema> {
  const out: Partial<Record<SpecComponentName, JsonSchema>> = {};
  for (const schema of loadSchemas()) {
    const name = componentOf(schema.$id);
    if (name) out[name as SpecComponentName] = toComponent(schema);
  }
  const missing = Object.values(SPEC_COMPONENTS).filter((n) => !out[n]);
  if (missing.length > 0) throw new Error(`spec/: no schema for ${missing.join(', ')}`);
  return out as Record<SpecComponentName, JsonSchema>;
}
