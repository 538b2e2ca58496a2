import { validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { NextRequest } from 'next/server';
import { describe, expect, it, vi } from 'vitest';
import { GET as docsPage } from '@/app/docs/api/route';
import { GET as redocJs } from '@/app/docs/api/redoc.js/route';
import { GET as openapiJson } from '@/app/api/v1/openapi.json/route';
import { ticketCreatedBody } from '@/lib/server/approvals/http';
import { buildOpenApiDocument } from '@/lib/server/openapi/document';
import { deliveryJson, webhookJson } from '@/lib/server/webhooks/http';
import pkg from '@/package.json' with { type: 'json' };

/**
 * The host API's OpenAPI document is a valid OpenAPI 3.1 document, every
 * schema in it is valid JSON Schema 2020-12, every example fits its schema,
 * the serializers' output fits the response schemas, and the document and
 * its renderer are served as promised.
 */

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const doc = buildOpenApiDocument({ version: pkg.version });
const ctx = { params: Promise.resolve({}) };

// ajv-formats is CommonJS: its default export is the plugin or the namespace around it.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/**
 * Ajv over the document's components: a schema that breaks the 2020-12
 * meta-schema, or uses a keyword it does not know, fails to compile. (Not
 * `strictRequired`: the spec's if/then branches require members defined by
 * the enclosing schema, which is valid.)
 */
function schemaChecker() {
  const ajv = addFormats(
    new Ajv2020({
      strictSchema: true,
      strictNumbers: true,
      allErrors: true,
      allowUnionTypes: true,
    }),
  );
  // `components` only holds the schemas that refs point into.
  ajv.addVocabulary(['x-error-codes', 'components']);
  const root = 'https://checkpoint.local/openapi.json';
  ajv.addSchema({ $id: root, $defs: {}, components: doc.components }, undefined, undefined, false);
  let n = 0;
  return (schema: object, value: unknown): string[] => {
    const check = ajv.compile({ $id: `${root}-check-${n++}`, ...(rebase(schema, root) as object) });
    return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

/** Document-relative refs (`#/components/...`) made absolute against the components' root. */
function rebase(value: unknown, root: string): unknown {
  if (Array.isArray(value)) return value.map((v) => rebase(v, root));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${root}${v}` : rebase(v, root),
    ]),
  );
}

type Media = { schema?: object; examples?: Record<string, { value: unknown }> };

/** Every (where, schema, example) triple in the document. */
function examples(): [string, object, unknown][] {
  const out: [string, object, unknown][] = [];
  const add = (where: string, content: Record<string, Media> | undefined) => {
    // A receipt is a compact JWS (application/jose), an evidence bundle JSONL
    // (application/x-ndjson): strings their schemas check too.
    const media =
      content?.['application/json'] ??
      content?.['application/jose'] ??
      content?.['application/x-ndjson'];
    for (const [name, ex] of Object.entries(media?.examples ?? {})) {
      out.push([`${where} ${name}`, media!.schema!, ex.value]);
    }
  };
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item) as [string, Record<string, never>][]) {
      add(`${method} ${path} request`, (op.requestBody as { content?: never })?.content);
      for (const [status, res] of Object.entries(op.responses as Record<string, never>)) {
        add(`${method} ${path} ${status}`, (res as { content?: never }).content);
      }
    }
  }
  return out;
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (@readme/openapi-parser), versioned as the app', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result).toMatchObject({ valid: true });
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(pkg.version);
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('holds only valid JSON Schema 2020-12 (strict: no unknown keyword, no bad value)', () => {
    const check = schemaChecker();
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => check({ $ref: `#/components/schemas/${name}` }, null), name).not.toThrow();
    }
  });

  it('has examples for every request body and main response, each fitting its schema', () => {
    const check = schemaChecker();
    const all = examples();
    for (const [where, schema, value] of all) expect(check(schema, value), where).toEqual([]);
    const covered = new Set(all.map(([where]) => where.split(' ').slice(0, 3).join(' ')));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item) as [string, Record<string, never>][]) {
        if (op.requestBody)
          expect(covered, `${method} ${path}`).toContain(`${method} ${path} request`);
        // The document's own route answers the document: no example of itself.
        if (path === '/api/v1/openapi.json') continue;
        const ok = Object.keys(op.responses).filter((s) => /^2/.test(s) && s !== '204');
        for (const s of ok) expect(covered).toContain(`${method} ${path} ${s}`);
      }
    }
  });

  it('describes what the serializers answer, in every state', () => {
    const check = schemaChecker();
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    for (const status of ['pending', 'approved', 'rejected', 'expired'] as const) {
      const body = ticketCreatedBody(
        {
          id: crypto.randomUUID(),
          hostId: 'h',
          status,
          expiresAt: new Date(),
          contextIdentity: null,
        },
        'http://localhost:3000',
      );
      expect(check(ref('TicketCreated'), body), status).toEqual([]);
    }
    const disabled = webhookJson({
      id: crypto.randomUUID(),
      kind: 'resolver',
      url: 'https://r.example/x',
      enabled: false,
      timeoutMs: 30_000,
      consecutiveFailures: 3,
      disabledAt: new Date(),
      disabledReason: 'self_test_failed',
      selfTest: {
        ok: false,
        echoOk: false,
        at: new Date().toISOString(),
        cases: [{ name: 'approve', ok: false, detail: 'timeout' }],
      },
      secrets: [{ id: 's', createdAt: new Date(), expiresAt: new Date() }],
    });
    expect(check(ref('Webhook'), disabled)).toEqual([]);
    expect(check(ref('WebhookList'), { callback: null, resolver: disabled })).toEqual([]);
    const pending = deliveryJson({
      id: crypto.randomUUID(),
      kind: 'resolver',
      ticketId: null,
      messageId: 'msg_1',
      eventType: 'approval.request',
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      latencyMs: null,
      createdAt: new Date(),
      nextAttemptAt: new Date(),
      deliveredAt: null,
    });
    expect(check(ref('Delivery'), pending)).toEqual([]);
    // The checker is not vacuous: a serializer adding a member would fail.
    expect(check(ref('Delivery'), { ...pending, extra: 1 })).not.toEqual([]);
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('answers the document as JSON, publicly, cacheable, with an ETag that revalidates', async () => {
    const res = await openapiJson(new NextRequest('http://localhost/api/v1/openapi.json'), ctx);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
    const etag = res.headers.get('etag')!;
    const again = await openapiJson(
      new NextRequest('http://localhost/api/v1/openapi.json', {
        headers: { 'if-none-match': etag },
      }),
      ctx,
    );
    expect(again.status).toBe(304);
  });
});

describe('/docs/api', () => {
  it('is a page that loads only our own Redoc bundle, under a same-origin-only CSP', async () => {
    const res = await docsPage(new NextRequest('http://localhost/docs/api'), ctx);
    const html = await res.text();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(html).toContain('<redoc spec-url="/api/v1/openapi.json"');
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual([`/docs/api/redoc.js?v=${pkg.dependencies.redoc}`]);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('serves the pinned Redoc standalone bundle as JavaScript', async () => {
    const res = await redocJs(new NextRequest('http://localhost/docs/api/redoc.js'), ctx);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    const js = await res.text();
    expect(js.length).toBeGreaterThan(500_000);
    expect(js).toContain('Redoc');
  });
});
