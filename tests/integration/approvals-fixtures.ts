import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NextRequest } from 'next/server';
import { type AgentContext, buildContext, jcsSha256, redactPaths } from '@checkpoint/agent-hooks';
import { GET as jwksRoute } from '@/app/.well-known/jwks.json/route';
import { GET as getApproval } from '@/app/api/v1/approvals/[id]/route';
import { GET as getReceipt } from '@/app/api/v1/approvals/[id]/receipt/route';
import { POST as postApproval } from '@/app/api/v1/approvals/route';
import { generateApiKey } from '@/lib/server/hosts/api-key';
import { testDb } from './helpers/db';

/** A host with one API key, written directly (the hosts services have their own tests). */
export async function hostWithKey(
  name: string,
  settings: { redactionPaths?: string[]; defaultTimeoutMs?: number; maxTimeoutMs?: number } = {},
): Promise<{ id: string; key: string }> {
  const prisma = await testDb();
  const host = await prisma.host.create({ data: { name, ...settings }, select: { id: true } });
  const k = generateApiKey();
  await prisma.apiKey.create({
    data: { hostId: host.id, name: 'test', prefix: k.prefix, hash: k.hash },
  });
  return { id: host.id, key: k.key };
}

export async function userWith(email: string, roles: ('admin' | 'reviewer' | 'auditor')[]) {
  const prisma = await testDb();
  return prisma.user.create({ data: { email, roles }, select: { id: true } });
}

let seq = 0;

/** A pre_tool_call context for a wire transfer (the demo's escalation). */
export function transferContext(
  args: Record<string, unknown> = {},
  sessionId = 'sess-1',
): AgentContext {
  return buildContext(
    'pre_tool_call',
    {
      spec: 'agent-hooks/0.1',
      timestamp: '2026-12-02T10:00:00.000Z',
      sequence: ++seq,
      agent: { id: 'billing-bot', framework: 'demo' },
      session: { id: sessionId },
    },
    {
      tool_call: {
        id: `call-${seq}`,
        name: 'wire_transfer',
        args: { to: 'ACME GmbH', amount: 25000, currency: 'EUR', ...args },
      },
    },
  );
}

export const LIFTABLE = {
  decision: 'deny',
  reason: 'amount_over_threshold',
  message: 'Transfers over 10,000 need a reviewer.',
  approval: {},
} as const;

/** A well-formed request for `context`, identity computed as a host would (after its redaction). */
export function approvalRequest(
  context: AgentContext,
  opts: { redact?: string[]; identity?: string | null; extra?: Record<string, unknown> } = {},
) {
  const shown = opts.redact?.length ? redactPaths(opts.redact)(context) : context;
  return {
    context_identity: opts.identity === undefined ? jcsSha256.compute(shown) : opts.identity,
    interception_point: shown.interception_point,
    verdict: LIFTABLE,
    context: shown,
    ...opts.extra,
  };
}

export function postRequest(key: string | null, body: unknown, raw?: string): NextRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  return new NextRequest('http://localhost/api/v1/approvals', {
    method: 'POST',
    headers,
    body: raw ?? JSON.stringify(body),
  });
}

/** JSON answers are read loosely in tests; the assertions say what matters. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Body = Record<string, any>;

export async function post(key: string | null, body: unknown, raw?: string) {
  const res = await postApproval(postRequest(key, body, raw), { params: Promise.resolve({}) });
  return { status: res.status, body: (await res.json()) as Body };
}

export async function poll(key: string, id: string, wait?: number) {
  const url = `http://localhost/api/v1/approvals/${id}${wait === undefined ? '' : `?wait=${wait}`}`;
  const req = new NextRequest(url, { headers: { authorization: `Bearer ${key}` } });
  const res = await getApproval(req, { params: Promise.resolve({ id }) });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Body,
  };
}

/**
 * The approval routes behind a real HTTP listener, for clients that talk
 * HTTP (HttpApprovalResolver). `close()` drops open connections, like an app
 * restart; `listen(port)` again brings it back on the same port.
 */
export class ApprovalsApp {
  private server?: Server;
  port = 0;

  async listen(port = 0): Promise<string> {
    const server = createServer((req, res) => {
      void handle(req).then(
        async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          res.end(Buffer.from(await response.arrayBuffer()));
        },
        () => {
          res.writeHead(500).end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function handle(req: IncomingMessage): Promise<Response> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const url = `http://${req.headers.host ?? '127.0.0.1'}${req.url}`;
  const ctrl = new AbortController();
  req.on('close', () => ctrl.abort());
  const headers = Object.entries(req.headers).flatMap(([k, v]) =>
    v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
  );
  const nreq = new NextRequest(url, {
    method: req.method,
    headers,
    body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
    signal: ctrl.signal,
  });
  const path = new URL(url).pathname;
  if (req.method === 'POST' && path === '/api/v1/approvals') {
    return postApproval(nreq, { params: Promise.resolve({}) });
  }
  const m = /^\/api\/v1\/approvals\/([^/]+)$/.exec(path);
  if (req.method === 'GET' && m)
    return getApproval(nreq, { params: Promise.resolve({ id: m[1] }) });
  // The receipt and the keys it verifies against (issue 13), as HttpApprovalResolver checks them.
  const r = /^\/api\/v1\/approvals\/([^/]+)\/receipt$/.exec(path);
  if (req.method === 'GET' && r) return getReceipt(nreq, { params: Promise.resolve({ id: r[1] }) });
  if (req.method === 'GET' && path === '/.well-known/jwks.json') {
    return jwksRoute(nreq, { params: Promise.resolve({}) });
  }
  return new Response('not found', { status: 404 });
}
