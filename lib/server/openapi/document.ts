import 'server-only';
import { denySetSchema } from '@/lib/server/approvals/validate-deny-set';
import { API_KEY_PREFIX } from '@/lib/server/hosts/api-key';
import { rotateBody, saveBody } from '@/lib/server/webhooks/http';
import { approvalRequestBody } from './approval-request';
import { errorSchema, errorTableMarkdown } from './errors';
import { jsonResponse, operation, type OperationSpec, ref } from './operation';
import { approvalOperations } from './operations-approvals';
import { logOperations } from './operations-log';
import { webhookOperations } from './operations-webhooks';
import { responseSchemas } from './responses';
import { type JsonSchema, specComponents } from './spec-components';
import { zodJsonSchema } from './zod-schema';

/**
 * The OpenAPI 3.1 document of the host API (issue 12): every schema comes
 * from the object that validates it (the spec's JSON Schemas, the routes'
 * zod validators) or, for responses, is checked against the serializers by
 * tests/unit/openapi-agreement.test.ts. Served by GET /api/v1/openapi.json,
 * rendered at /docs/api, and the input of scripts/openapi-python.ts.
 */

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
  [key: string]: unknown;
};

export const SECURITY_SCHEME = 'hostApiKey';

const DESCRIPTION = `The HTTP API a host (an agent runtime embedding Agent Hooks 0.1) uses to ask for approvals, send interception records and manage its webhooks.

## Authentication

Every host operation takes a host API key as a bearer token: \`Authorization: Bearer ${API_KEY_PREFIX}…\`. An admin creates the host and issues its keys under /hosts; a key is shown once. A missing, malformed, unknown or revoked key, or an archived host's, is 401 \`unauthenticated\` with \`WWW-Authenticate: Bearer realm="checkpoint"\`. Everything is scoped to the key's host: another host's resources are 404.

## Schemas

The Agent Hooks schemas (AgentContext, Verdict, ApprovalRequest, ApprovalResolution, InterceptionRecord, InterceptionPoint) are the project's copies of the spec's normative JSON Schemas (2020-12), published unchanged but for their \`$ref\`s. JSON bodies are read as raw text first: integers beyond ±(2^53−1), duplicate members and lone surrogates are refused (400 \`value_domain\`, §4.4).

## Errors

Every refusal is \`{"error": {"code", "message", "details"?}}\` (the \`Error\` schema) with the status below; branch on \`code\`, never on \`message\`. Each code has exactly one status.

`;

function metaOperations(): Record<string, Record<string, OperationSpec>> {
  return {
    '/api/v1/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        tags: ['Meta'],
        summary: 'This document',
        description: 'The OpenAPI 3.1 document of the host API. No key needed.',
        public: true,
        responses: {
          '200': jsonResponse('The document.', { type: 'object', required: ['openapi'] }),
        },
        errors: ['internal'],
      },
    },
    '/api/health': {
      get: {
        operationId: 'getHealth',
        tags: ['Meta'],
        summary: 'Liveness',
        description: 'The process answers; no dependency is checked. No key needed.',
        public: true,
        responses: {
          '200': jsonResponse('Alive.', ref('Health'), {
            ok: { summary: 'Alive', value: { status: 'ok' } },
          }),
        },
        errors: [],
      },
    },
    '/.well-known/jwks.json': {
      get: {
        operationId: 'getJwks',
        tags: ['Meta'],
        summary: 'Signing keys (JWKS)',
        description:
          "The deployment's Ed25519 public keys (RFC 7517 JWK Set), the active key first, then every retired one: receipts and signed tree heads are compact JWS (`alg: EdDSA`) whose header `kid` (the key's RFC 7638 thumbprint) names one of these. Keys are never removed. Cached for five minutes (`Cache-Control: public, max-age=300`). No key needed.",
        public: true,
        responses: {
          '200': jsonResponse('The keys.', JWKS_SCHEMA, {
            one: {
              summary: 'One active key',
              value: {
                keys: [
                  {
                    kty: 'OKP',
                    crv: 'Ed25519',
                    x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
                    kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
                    alg: 'EdDSA',
                    use: 'sig',
                  },
                ],
              },
            },
          }),
        },
        errors: ['internal'],
      },
    },
  };
}

/** A JWK Set of Ed25519 signature keys (RFC 7517 §5, RFC 8037 §2). */
const JWKS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['keys'],
  properties: {
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kty', 'crv', 'x', 'kid', 'alg', 'use'],
        properties: {
          kty: { const: 'OKP' },
          crv: { const: 'Ed25519' },
          x: { type: 'string', description: 'The public key, base64url.' },
          kid: { type: 'string', description: 'RFC 7638 SHA-256 thumbprint, base64url.' },
          alg: { const: 'EdDSA' },
          use: { const: 'sig' },
        },
      },
    },
  },
};

export function schemaComponents(): Record<string, JsonSchema> {
  const spec = specComponents();
  return {
    ...spec,
    CreateApproval: approvalRequestBody(spec.ApprovalRequest),
    DenySet: zodJsonSchema(denySetSchema),
    SaveWebhook: zodJsonSchema(saveBody),
    RotateWebhookSecret: zodJsonSchema(rotateBody),
    ...responseSchemas(),
    Error: errorSchema(),
  };
}

export function buildOpenApiDocument(options: { version: string }): OpenApiDocument {
  const tables = {
    ...approvalOperations(),
    ...webhookOperations(),
    ...logOperations(),
    ...metaOperations(),
  };
  const paths = Object.fromEntries(
    Object.entries(tables).map(([path, ops]) => [
      path,
      Object.fromEntries(Object.entries(ops).map(([method, spec]) => [method, operation(spec)])),
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Checkpoint host API',
      version: options.version,
      description: `${DESCRIPTION}${errorTableMarkdown()}\n`,
    },
    servers: [{ url: '/', description: 'This Checkpoint.' }],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: [
      { name: 'Approvals', description: 'The approval seam over HTTP (§9).' },
      { name: 'Records', description: 'The audit store (§10.3).' },
      { name: 'Webhooks', description: "The host's callback and automated resolver." },
      {
        name: 'Transparency log',
        description: 'Signed tree heads and RFC 9162 proofs over every record and decision.',
      },
      { name: 'Meta', description: 'Public endpoints.' },
    ],
    paths,
    components: {
      schemas: schemaComponents(),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: `${API_KEY_PREFIX} followed by 40 letters and digits`,
          description: 'A host API key, issued by an admin under /hosts (shown once).',
        },
      },
    },
  };
}
