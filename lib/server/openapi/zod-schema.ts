import 'server-only';
import { z } from 'zod';
import type { JsonSchema } from './spec-components';

/**
 * The JSON Schema of what a zod validator accepts (its input side: a
 * `.default()` member is optional, a `z.coerce` query value is shown as the
 * type it coerces to). The dialect marker is dropped: the document's own
 * dialect is 2020-12, which is what zod emits. Refinements (`.refine`,
 * `.superRefine`) have no JSON Schema form: the schema says less than the
 * validator checks, never more.
 */
export function zodJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  return rest;
}
