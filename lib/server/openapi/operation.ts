import 'server-only';
import type { ErrorCode } from '@/lib/server/http/error-codes';
import { errorResponses } from './errors';
import { componentRef, type JsonSchema } from './spec-components';

/** Small builders shared by the operation tables (operations-*.ts). */

export type Example = { summary: string; value: unknown };

export const ref = (name: string) => ({ $ref: componentRef(name) });

/** `content` of one JSON body with named examples. */
export function jsonContent(schema: JsonSchema, examples?: Record<string, Example>): JsonSchema {
  return { 'application/json': { schema, ...(examples ? { examples } : {}) } };
}

export function jsonResponse(
  description: string,
  schema: JsonSchema,
  examples?: Record<string, Example>,
  headers?: JsonSchema,
): JsonSchema {
  return { description, ...(headers ? { headers } : {}), content: jsonContent(schema, examples) };
}

export const NO_STORE = {
  'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string' } },
};

/**
 * Every host route: the key is checked first (in the database: with it
 * unreachable or too slow, 503 with `Retry-After`); anything unexpected is a
 * bare 500.
 */
export const HOST_AUTH: readonly ErrorCode[] = [
  'unauthenticated',
  'internal',
  'database_unavailable',
  'database_timeout',
];
/** What the one JSON body reader (read-body.ts) and route()'s zod parse refuse. */
export const JSON_BODY: readonly ErrorCode[] = [
  'request_invalid',
  'json_invalid',
  'value_domain',
  'payload_too_large',
  'unsupported_media_type',
];

export type OperationSpec = {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
  /** The codes this operation can answer; grouped into error responses by status. */
  errors: readonly ErrorCode[];
  /** Public operations override the document's default (the host key). */
  public?: boolean;
};

/** An OpenAPI Operation Object from the table entry. */
export function operation(spec: OperationSpec): JsonSchema {
  const { errors, public: isPublic, responses, ...rest } = spec;
  return {
    ...rest,
    ...(isPublic ? { security: [] } : {}),
    responses: { ...responses, ...errorResponses(errors) },
  };
}

export const pathParam = (name: string, schema: JsonSchema, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});

/**
 * A zod query object as parameters, one per member: each parameter's schema
 * is the member's schema, `required` as the object says.
 */
export function queryParams(objectSchema: JsonSchema, descriptions: Record<string, string>) {
  const properties = objectSchema.properties as Record<string, JsonSchema>;
  const required = new Set((objectSchema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    description: descriptions[name],
    schema,
  }));
}
