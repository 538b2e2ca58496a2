import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IntakeError } from '@/lib/server/approvals/errors';
import { denySetSchema } from '@/lib/server/approvals/validate-deny-set';
import { REQUEST_MEMBERS, validateApprovalRequest } from '@/lib/server/approvals/validate-request';
import { ERROR_CODES } from '@/lib/server/http/error-codes';
import { buildOpenApiDocument } from '@/lib/server/openapi/document';
import { approvalRequestExample } from '@/lib/server/openapi/examples';
import { SPEC_COMPONENTS } from '@/lib/server/openapi/spec-components';
import { evidenceQuery } from '@/lib/server/audit/evidence';
import { agentIdParam } from '@/lib/server/records/receive';
import { consistencyQuery, inclusionQuery, treeHeadQuery } from '@/lib/server/transparency/api';
import { deliveriesQuery, rotateBody, saveBody } from '@/lib/server/webhooks/http';
import { WEBHOOK_KINDS } from '@/lib/server/webhooks/webhooks';

/**
 * The document and the code agree (issue 12, item 5): every host route is
 * documented with its methods, each request schema is exactly the JSON
 * Schema of the validator object the route uses, the approval intake (code,
 * not one schema) accepts and refuses what its documented schema says, and
 * every error code is in the document. Adding a route, a method, a
 * validator or a code without the document fails here.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const doc = buildOpenApiDocument({ version: '0.0.0' });
type Json = Record<string, unknown>;
const schemas = doc.components.schemas as Record<string, Json>;
const op = (p: string, method: string) => doc.paths[p][method] as Json;

/** What zod itself says the validator accepts, independent of the generator. */
const zodSchema = (schema: z.ZodType) => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Json;
  return rest;
};

function routeFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) routeFiles(rel, out);
    else if (name === 'route.ts') out.push(rel);
  }
  return out;
}

/** app/api/v1/webhooks/[kind]/route.ts → /api/v1/webhooks/{kind} */
const pathOf = (file: string) =>
  `/${path.dirname(path.relative('app', file)).replace(/\[([^\]]+)\]/g, '{$1}')}`;

const exportedMethods = (source: string) =>
  [...source.matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)]
    .map((m) => m[1].toLowerCase())
    .sort();

/**
 * Host-facing routes outside /api/v1 that the document covers; every route
 * under /api/v1 is covered, or listed in EXCLUDED with the reason.
 */
const ALSO_DOCUMENTED = ['app/api/health/route.ts', 'app/.well-known/jwks.json/route.ts'];
const EXCLUDED: Record<string, string> = {};

describe('every host route is in the document', () => {
  const files = [...routeFiles('app/api/v1'), ...ALSO_DOCUMENTED].filter((f) => !EXCLUDED[f]);

  it.each(files)('%s: its path and exactly its methods', (file) => {
    const item = doc.paths[pathOf(file)];
    expect(item, `${pathOf(file)} is not in the document`).toBeDefined();
    expect(Object.keys(item).sort()).toEqual(exportedMethods(read(file)));
  });

  it('documents no path without a route file, and excludes only files that exist', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(files.map(pathOf).sort());
    for (const file of Object.keys(EXCLUDED))
      expect(statSync(path.join(ROOT, file)).isFile()).toBe(true);
  });
});

/** Each route() validator: the route passes it, and the document shows exactly its schema. */
const VALIDATED = [
  {
    file: 'app/api/v1/webhooks/[kind]/route.ts',
    option: 'body',
    name: 'saveBody',
    schema: saveBody,
    doc: () => schemas.SaveWebhook,
  },
  {
    file: 'app/api/v1/webhooks/[kind]/rotate/route.ts',
    option: 'body',
    name: 'rotateBody',
    schema: rotateBody,
    doc: () => schemas.RotateWebhookSecret,
  },
  {
    file: 'app/api/v1/webhooks/deliveries/route.ts',
    option: 'query',
    name: 'deliveriesQuery',
    schema: deliveriesQuery,
    doc: () => queryObject(op('/api/v1/webhooks/deliveries', 'get')),
  },
  {
    file: 'app/api/v1/log/tree-head/route.ts',
    option: 'query',
    name: 'treeHeadQuery',
    schema: treeHeadQuery,
    doc: () => queryObject(op('/api/v1/log/tree-head', 'get')),
  },
  {
    file: 'app/api/v1/audit/sessions/[id]/evidence/route.ts',
    option: 'query',
    name: 'evidenceQuery',
    schema: evidenceQuery,
    doc: () => queryObject(op('/api/v1/audit/sessions/{id}/evidence', 'get')),
  },
  {
    file: 'app/api/v1/log/proof/inclusion/route.ts',
    option: 'query',
    name: 'inclusionQuery',
    schema: inclusionQuery,
    doc: () => queryObject(op('/api/v1/log/proof/inclusion', 'get')),
  },
  {
    file: 'app/api/v1/log/proof/consistency/route.ts',
    option: 'query',
    name: 'consistencyQuery',
    schema: consistencyQuery,
    doc: () => queryObject(op('/api/v1/log/proof/consistency', 'get')),
  },
];

/** The document's query parameters folded back into the object schema zod emits. */
function queryObject(operation: Json): Json {
  const params = (operation.parameters as Json[]).filter((p) => p.in === 'query');
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

describe('request schemas are the validators’ own', () => {
  it.each(VALIDATED)('$file: $option is $name, documented as zod emits it', (v) => {
    const source = read(v.file);
    expect(source).toMatch(new RegExp(`route\\(\\s*\\{[^}]*\\b${v.option}: ${v.name}\\b`));
    expect(v.doc()).toEqual(zodSchema(v.schema));
  });

  it('no route validates with a schema missing from that list', () => {
    const used = routeFiles('app/api/v1').flatMap((file) =>
      [...read(file).matchAll(/route\(\s*\{([^}]*)\}/g)].flatMap((m) =>
        [...m[1].matchAll(/\b(body|query)(?::\s*(\w+))?/g)].map(
          (u) => `${file} ${u[1]}: ${u[2] ?? u[1]}`,
        ),
      ),
    );
    expect(used.sort()).toEqual(VALIDATED.map((v) => `${v.file} ${v.option}: ${v.name}`).sort());
  });

  it('records: agent_id is receive.ts’ agentIdParam; the body is the spec record schema validateAgainst uses', () => {
    const records = op('/api/v1/records', 'post');
    const agent = (records.parameters as Json[]).find((p) => p.name === 'agent_id')!;
    expect(agent.schema).toEqual(zodSchema(agentIdParam));
    expect(read('lib/server/records/receive.ts')).toMatch(/agentIdParam\.safeParse\(agent\)/);
    expect(read('lib/server/records/validate-record.ts')).toMatch(/validateAgainst\('record', /);
    const body = (records.requestBody as { content: Record<string, { schema: Json }> }).content;
    expect((body['application/json'].schema.items as Json).$ref).toBe(
      '#/components/schemas/InterceptionRecord',
    );
  });

  it('the deny_set is validate-deny-set.ts’ schema', () => {
    expect(schemas.DenySet).toEqual(zodSchema(denySetSchema));
  });

  it('the webhook kinds are the ones webhooks.ts accepts', () => {
    const param = (op('/api/v1/webhooks/{kind}', 'put').parameters as Json[])[0];
    expect(param.schema).toEqual({ type: 'string', enum: [...WEBHOOK_KINDS] });
  });
});

/** The component with its document refs turned back into the spec file's relative refs. */
function asSpecFile(name: string, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => asSpecFile(name, v));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      if (k !== '$ref' || typeof v !== 'string') return [k, asSpecFile(name, v)];
      const [, target, pointer] = /^#\/components\/schemas\/([^/]+)(.*)$/.exec(v)!;
      const file = Object.entries(SPEC_COMPONENTS).find(([, n]) => n === target)![0];
      return [k, target === name ? `#${pointer}` : `${file}${pointer ? `#${pointer}` : ''}`];
    }),
  );
}

describe('the spec schemas are published unchanged', () => {
  it.each(Object.entries(SPEC_COMPONENTS))('%s as %s', (file, name) => {
    const { $id: _id, $schema: _dialect, ...original } = JSON.parse(read(`spec/schema/${file}`));
    expect(asSpecFile(name, schemas[name])).toEqual(original);
  });
});

describe('POST /api/v1/approvals: the intake accepts and refuses what the document says', () => {
  const body = schemas.CreateApproval as { properties: Record<string, Json>; required: string[] };
  const props = body.properties;
  const refusal = (value: unknown): string | null => {
    try {
      validateApprovalRequest(value);
      return null;
    } catch (err) {
      if (err instanceof IntakeError) return err.code;
      throw err;
    }
  };
  const withMember = (name: string, value: unknown) => ({
    ...approvalRequestExample,
    [name]: value,
  });

  it('documents exactly the members the validator knows, and the example passes', () => {
    expect(Object.keys(props).sort()).toEqual([...REQUEST_MEMBERS].sort());
    expect(refusal(approvalRequestExample)).toBeNull();
    expect(refusal(withMember('surprise', 1))).toBe('request_invalid');
  });

  it.each(body.required)('refuses a request without %s', (name) => {
    const { [name]: _dropped, ...rest } = approvalRequestExample as Json;
    expect(refusal(rest)).not.toBeNull();
  });

  it.each(['session', 'agent', 'context_identity'])('%s: maxLength is the limit', (name) => {
    const max = props[name].maxLength as number;
    expect(refusal(withMember(name, 'x'.repeat(max)))).toBeNull();
    expect(refusal(withMember(name, 'x'.repeat(max + 1)))).not.toBeNull();
  });

  it('timeout_ms: the minimum is the limit', () => {
    const min = props.timeout_ms.minimum as number;
    expect(refusal(withMember('timeout_ms', min))).toBeNull();
    expect(refusal(withMember('timeout_ms', min - 1))).toBe('timeout_invalid');
    expect(refusal(withMember('timeout_ms', min + 0.5))).toBe('timeout_invalid');
  });

  it('request_id: the pattern is the rule', () => {
    const pattern = new RegExp(props.request_id.pattern as string);
    for (const id of ['inv-42', 'a'.repeat(200), 'has space', 'a'.repeat(201), 'é']) {
      expect(refusal(withMember('request_id', id)) === null, id).toBe(pattern.test(id));
    }
  });

  it('identity_provider and interception_point: the documented choices', () => {
    expect(refusal(withMember('identity_provider', 'python-example'))).toBeNull();
    expect(refusal(withMember('identity_provider', 'jcs-other'))).toBe('provider_invalid');
    expect(refusal(withMember('identity_provider', 'Upper'))).toBe('provider_invalid');
    expect(props.interception_point.not).toEqual({ const: 'agent_shutdown' });
    const shutdown = { ...approvalRequestExample, interception_point: 'agent_shutdown' };
    expect(refusal(shutdown)).toBe('point_invalid');
  });
});

describe('every error code is in the document', () => {
  const error = schemas.Error as { properties: { error: { properties: { code: Json } } } } & Json;

  it('as the Error schema’s code enum and its x-error-codes table, with the one status', () => {
    expect(error.properties.error.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
    expect(error['x-error-codes']).toEqual(
      Object.entries(ERROR_CODES).map(([code, e]) => ({
        code,
        status: e.status,
        area: e.area,
        meaning: e.when,
      })),
    );
  });

  it('in the description’s table', () => {
    for (const [code, e] of Object.entries(ERROR_CODES)) {
      expect(doc.info.description).toContain(`| \`${code}\` | ${e.status} |`);
    }
  });

  it('each operation’s error responses carry codes of that status only', () => {
    for (const item of Object.values(doc.paths)) {
      for (const operation of Object.values(item) as Json[]) {
        for (const [status, res] of Object.entries(operation.responses as Record<string, Json>)) {
          const media = (res.content as Record<string, Json> | undefined)?.['application/json'];
          if (!(Number(status) >= 400)) continue;
          for (const code of Object.keys(media!.examples as Json)) {
            expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(Number(status));
          }
        }
      }
    }
  });
});
