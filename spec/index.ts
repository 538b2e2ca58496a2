/**
 * The machine-readable spec (§4, §5, §9, §10.3) behind one validator. This is
 * tooling, not the pure engine: it pulls in Ajv. The schemas are imported as
 * JSON modules rather than read with fs so that bundlers (Next), tsx and
 * vitest all resolve them the same way.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import contextSchema from './schema/agent-context.schema.json' with { type: 'json' };
import agentShutdown from './schema/agent-context/agent_shutdown.schema.json' with { type: 'json' };
import agentStartup from './schema/agent-context/agent_startup.schema.json' with { type: 'json' };
import input from './schema/agent-context/input.schema.json' with { type: 'json' };
import output from './schema/agent-context/output.schema.json' with { type: 'json' };
import postModelCall from './schema/agent-context/post_model_call.schema.json' with {
  type: 'json',
};
import postToolCall from './schema/agent-context/post_tool_call.schema.json' with { type: 'json' };
import preModelCall from './schema/agent-context/pre_model_call.schema.json' with { type: 'json' };
import preToolCall from './schema/agent-context/pre_tool_call.schema.json' with { type: 'json' };
import requestSchema from './schema/approval-request.schema.json' with { type: 'json' };
import resolutionSchema from './schema/approval-resolution.schema.json' with { type: 'json' };
import pointSchema from './schema/interception-point.schema.json' with { type: 'json' };
import recordSchema from './schema/interception-record.schema.json' with { type: 'json' };
import verdictSchema from './schema/verdict.schema.json' with { type: 'json' };

/**
 * The project's own schema ids. They are not the spec's public ids: the two
 * sets must load side by side (the agreement test, a tool holding both), and
 * an id names one document, so the project's copies cannot claim the spec's.
 */
export const SCHEMA_BASE = 'https://checkpoint.local/schema/agent-hooks/0.1/';

export type SchemaKind =
  | 'context'
  | 'verdict'
  | 'request'
  | 'resolution'
  | 'record'
  | 'interception-point';

export type ValidationResult = { ok: true } | { ok: false; errors: string[] };

/** A JSON Schema document as loaded: every one carries an absolute `$id`. */
export type SchemaDocument = { $id: string; [keyword: string]: unknown };

/**
 * The interception points (§3), as the spec's own interception-point schema
 * lists them. The spec defines itself: the engine's vocabulary is checked
 * against this list (tests/unit/spec/spec-agreement.test.ts), never the
 * other way round.
 */
export const INTERCEPTION_POINTS: readonly string[] = Object.freeze([...pointSchema.enum]);

/** The per-point context schemas (§4), keyed by the point each one fixes. */
const POINT_SCHEMAS: ReadonlyMap<string, SchemaDocument> = pointSchemas([
  agentStartup,
  input,
  preModelCall,
  postModelCall,
  preToolCall,
  postToolCall,
  output,
  agentShutdown,
]);

/**
 * Keys each per-point schema by its `interception_point` const, and refuses
 * to load when they are not exactly one per listed point: a missing one would
 * silently validate that point's contexts against the envelope only.
 */
function pointSchemas(schemas: SchemaDocument[]): Map<string, SchemaDocument> {
  const byPoint = new Map<string, SchemaDocument>();
  for (const schema of schemas) {
    const properties = schema.properties as { interception_point?: { const?: unknown } };
    const point = properties?.interception_point?.const;
    if (typeof point === 'string' && !byPoint.has(point)) byPoint.set(point, schema);
  }
  const listed = [...INTERCEPTION_POINTS].sort().join();
  if ([...byPoint.keys()].sort().join() !== listed || byPoint.size !== schemas.length) {
    throw new Error(
      'spec/: the per-point context schemas do not match interception-point.schema.json',
    );
  }
  return byPoint;
}

const KIND_SCHEMAS: Record<Exclude<SchemaKind, 'context'>, SchemaDocument> = {
  verdict: verdictSchema,
  request: requestSchema,
  resolution: resolutionSchema,
  record: recordSchema,
  'interception-point': pointSchema,
};

/**
 * Every schema of the spec, ready for `ajv.addSchema` in another Ajv 2020
 * instance (the CTK runner resolves its vector schema's $refs against them).
 * Copies, so a caller cannot alter the ones validateAgainst uses.
 */
export function loadSchemas(): SchemaDocument[] {
  return [contextSchema, ...POINT_SCHEMAS.values(), ...Object.values(KIND_SCHEMAS)].map((schema) =>
    structuredClone(schema),
  );
}

// ajv-formats is CommonJS; depending on the loader its default export is the
// plugin itself or the module namespace around it.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/**
 * Registers every spec schema, and the formats they use (date-time), with
 * another Ajv 2020 instance, e.g. one that compiles the CTK vector schema.
 * The instance decides whether formats assert (its `validateFormats`).
 */
export function addSpecSchemas(ajv: Ajv2020): Ajv2020 {
  addFormats(ajv);
  for (const schema of loadSchemas()) ajv.addSchema(schema);
  return ajv;
}

/** The `$id` of the per-point context schema (§4). */
export function contextSchemaId(point: string): string {
  return `${SCHEMA_BASE}agent-context/${point}.schema.json`;
}

export type ValidateOptions = {
  /**
   * In JSON Schema 2020-12 `format` is an annotation unless a schema opts into
   * the format-assertion vocabulary, which the spec's schemas do not: so by
   * default a malformed date-time is valid. Tools that want the stricter
   * reading (the CTK on the contexts its own host built, the CLI's warnings)
   * ask for it.
   */
  assertFormats?: boolean;
};

const compiled = new Map<boolean, Map<string, ValidateFunction>>();

function validators(assertFormats: boolean): Map<string, ValidateFunction> {
  const cached = compiled.get(assertFormats);
  if (cached) return cached;
  // verbose: `not` errors then carry their subschema, which says what was refused.
  const ajv = addSpecSchemas(
    new Ajv2020({
      allErrors: true,
      verbose: true,
      allowUnionTypes: true,
      validateFormats: assertFormats,
    }),
  );
  const byId = new Map<string, ValidateFunction>();
  for (const schema of loadSchemas()) byId.set(schema.$id, ajv.getSchema(schema.$id)!);
  compiled.set(assertFormats, byId);
  return byId;
}

/**
 * Validates a value against one of the spec's schemas. A context is checked
 * against the schema of its own interception_point; one without a known
 * point falls back to the envelope, which reports that.
 */
export function validateAgainst(
  kind: SchemaKind,
  value: unknown,
  options: ValidateOptions = {},
): ValidationResult {
  const validate = validators(options.assertFormats === true).get(schemaIdFor(kind, value))!;
  if (validate(value)) return { ok: true };
  return { ok: false, errors: formatErrors(validate.errors ?? []) };
}

function schemaIdFor(kind: SchemaKind, value: unknown): string {
  if (kind !== 'context') return KIND_SCHEMAS[kind].$id;
  const point = (value as { interception_point?: unknown } | null)?.interception_point;
  if (typeof point === 'string' && POINT_SCHEMAS.has(point)) return POINT_SCHEMAS.get(point)!.$id;
  return contextSchema.$id;
}

/** "/tool_call/args must be object", one line per error, never echoing the value. */
function formatErrors(errors: ErrorObject[]): string[] {
  const lines = errors
    // An if/then failure repeats what the error inside `then` already says.
    .filter((error) => error.keyword !== 'if')
    .map(
      (error) =>
        `${error.instancePath === '' ? '(root)' : error.instancePath} ${explainError(error)}`,
    );
  return [...new Set(lines)];
}

function explainError(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') {
    const name = (error.params as { additionalProperty: string }).additionalProperty;
    return `must NOT have additional property ${JSON.stringify(name)}`;
  }
  if (error.keyword === 'pattern') {
    // `^(?!host_error:)` reads better as what it forbids.
    const forbidden = /^\^\(\?!(.*)\)$/.exec((error.params as { pattern: string }).pattern);
    if (forbidden) return `must NOT start with "${forbidden[1]}"`;
  }
  if (error.keyword === 'not') {
    const refused = error.schema as { required?: string[]; pattern?: string };
    if (refused.required) return `must NOT have property "${refused.required.join('", "')}"`;
    if (refused.pattern) return `must NOT match pattern "${refused.pattern}"`;
  }
  return error.message ?? 'is invalid';
}
