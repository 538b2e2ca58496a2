import { NextRequest } from 'next/server';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as postApproval } from '@/app/api/v1/approvals/route';
import { POST as postRecords } from '@/app/api/v1/records/route';
import { POST as rotate } from '@/app/api/v1/webhooks/[kind]/rotate/route';
import { PUT as putWebhook } from '@/app/api/v1/webhooks/[kind]/route';
import { MAX_REQUEST_BYTES } from '@/lib/server/approvals/intake';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { DEFAULT_MAX_BODY_BYTES } from '@/lib/server/http/read-body';
import { MAX_BODY_BYTES as MAX_RECORDS_BYTES } from '@/lib/server/records/limits';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import { approvalRequest, hostWithKey, transferContext } from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { makeRecord } from './records-fixtures';
import { Receiver } from './webhooks-fixtures';

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Item 7: every JSON endpoint reads its body through the one reader
 * (lib/server/http/read-body.ts): the size limit before reading (declared
 * length, then a streaming cap), fatal UTF-8 decoding, duplicate members
 * refused, the same codes everywhere, and nothing stored on a refusal.
 */

type Handler = (
  req: NextRequest,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;

/** Marks where a test splices bytes into an otherwise valid body. */
const BAD = '@@BAD@@';

type JsonRoute = {
  name: string;
  handler: Handler;
  method: 'POST' | 'PUT';
  path: string;
  params: Record<string, string>;
  contentType: string;
  maxBytes: number;
  /** A body the route accepts, `mark` inside it (BAD: where the bad bytes go). */
  valid: (mark: string) => string;
  /** The same request with one member given twice. */
  duplicate: () => string;
  /** The code for a duplicate member: NDJSON refuses the record (per line), JSON the body. */
  duplicateCode?: 'records_invalid';
  /** What replaces BAD in the accepted control body (default `ok`). */
  fill?: string;
};

let receiverUrl = '';

const approvalBody = (mark = BAD) => {
  const body = approvalRequest(transferContext({ memo: mark }));
  return JSON.stringify(body);
};
const record = (mark = BAD) => JSON.stringify(makeRecord(`sess-${mark}`, 1));

const ROUTES: JsonRoute[] = [
  {
    name: 'POST /api/v1/approvals',
    handler: postApproval,
    method: 'POST',
    path: '/api/v1/approvals',
    params: {},
    contentType: 'application/json',
    maxBytes: MAX_REQUEST_BYTES,
    valid: (m) => approvalBody(m),
    duplicate: () => `{"interception_point":"pre_tool_call",${approvalBody().slice(1)}`,
  },
  {
    name: 'POST /api/v1/records (JSON array)',
    handler: postRecords,
    method: 'POST',
    path: '/api/v1/records',
    params: {},
    contentType: 'application/json',
    maxBytes: MAX_RECORDS_BYTES,
    valid: (m) => `[${record(m)}]`,
    duplicate: () => `[{"sequence":2,${record().slice(1)}]`,
  },
  {
    name: 'POST /api/v1/records (NDJSON)',
    handler: postRecords,
    method: 'POST',
    path: '/api/v1/records',
    params: {},
    contentType: 'application/x-ndjson',
    duplicateCode: 'records_invalid',
    maxBytes: MAX_RECORDS_BYTES,
    valid: (m) => `${record(m)}\n`,
    duplicate: () => `{"sequence":2,${record().slice(1)}\n`,
  },
  {
    name: 'PUT /api/v1/webhooks/{kind}',
    handler: putWebhook,
    method: 'PUT',
    path: '/api/v1/webhooks/callback',
    params: { kind: 'callback' },
    contentType: 'application/json',
    maxBytes: DEFAULT_MAX_BODY_BYTES,
    valid: (m) => JSON.stringify({ url: `${receiverUrl}/hook?tag=${m}` }),
    duplicate: () => `{"url":"${receiverUrl}/a","url":"${receiverUrl}/b"}`,
  },
  {
    name: 'POST /api/v1/webhooks/{kind}/rotate',
    handler: rotate,
    method: 'POST',
    path: '/api/v1/webhooks/resolver/rotate',
    params: { kind: 'resolver' },
    contentType: 'application/json',
    maxBytes: DEFAULT_MAX_BODY_BYTES,
    // This body has no string: the bad bytes go where trailing whitespace may stand.
    valid: (m) => `{"overlap_seconds":60}${m}`,
    fill: ' ',
    duplicate: () => '{"overlap_seconds":60,"overlap_seconds":0}',
  },
];

let host: { id: string; key: string };

function request(
  r: JsonRoute,
  body: BodyInit,
  extraHeaders: Record<string, string> = {},
): NextRequest {
  return new NextRequest(`http://localhost${r.path}`, {
    method: r.method,
    headers: {
      authorization: `Bearer ${host.key}`,
      'content-type': r.contentType,
      ...extraHeaders,
    },
    body,
    duplex: 'half',
  } as ConstructorParameters<typeof NextRequest>[1]);
}

async function send(r: JsonRoute, body: BodyInit, headers?: Record<string, string>) {
  const res = await r.handler(request(r, body, headers), { params: Promise.resolve(r.params) });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: loose JSON in tests
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

/** Everything a JSON endpoint could write: a refusal must leave all of it unchanged. */
async function stored() {
  const p = await testDb();
  const [tickets, records, webhooks, secrets, outbox, audit, deliveries] = await Promise.all([
    p.approvalTicket.count(),
    p.interceptionRecord.count(),
    p.webhook.findMany({ select: { id: true, url: true, updatedAt: true } }),
    p.webhookSecret.findMany({ select: { id: true, expiresAt: true } }),
    p.outboxEvent.count(),
    p.auditEvent.count(),
    p.webhookDelivery.count(),
  ]);
  return { tickets, records, webhooks, secrets, outbox, audit, deliveries };
}

/** A body whose BAD marker is replaced by bytes that are not UTF-8. */
function withInvalidUtf8(text: string): Buffer<ArrayBuffer> {
  const parts = text.split(BAD);
  expect(parts.length, 'the valid body must carry the marker').toBeGreaterThan(1);
  const bad = Buffer.from([0xff, 0xc3, 0x28]);
  return Buffer.concat(
    parts.flatMap((p, i) => (i === 0 ? [Buffer.from(p)] : [bad, Buffer.from(p)])),
  );
}

/**
 * An endless body that counts what was pulled from it: a reader that reads
 * everything before judging the size would never finish.
 */
function endlessBody(chunkBytes = 64 * 1024) {
  const state = { pulled: 0, cancelled: false };
  const chunk = new Uint8Array(chunkBytes).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state, chunkBytes };
}

describe('the one JSON body reader, on every JSON endpoint', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    await truncateAll();
    host = await hostWithKey('reader-host');
    receiver = new Receiver((r) => {
      const req = JSON.parse(r.body || '{}');
      return {
        status: 200,
        body: JSON.stringify({
          outcome: 'unresolved',
          context_identity: req.context_identity ?? null,
        }),
      };
    });
    await receiverUrlFrom(receiver);
    // The rotate route needs a webhook to rotate.
    const saved = await saveWebhook(
      { hostId: host.id, kind: 'resolver', url: `${receiverUrl}/resolve`, timeoutMs: 800 },
      null,
    );
    expect(saved.webhook.enabled).toBe(true);
  });
  afterEach(() => receiver.stop());
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  async function receiverUrlFrom(r: Receiver) {
    await r.start();
    receiverUrl = r.url;
  }

  describe.each(ROUTES)('$name', (r) => {
    it('accepts the valid body (the control: refusals below are about the bytes)', async () => {
      const res = await send(r, r.valid(r.fill ?? 'ok'));
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    });

    it('invalid UTF-8: 400 json_invalid, nothing stored', async () => {
      const before = await stored();
      const res = await send(r, withInvalidUtf8(r.valid(BAD)));
      expect(res).toMatchObject({ status: 400, body: { error: { code: 'json_invalid' } } });
      expect(await stored()).toEqual(before);
    });

    it('a member given twice: 400, nothing stored', async () => {
      const before = await stored();
      const res = await send(r, r.duplicate());
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(r.duplicateCode ?? 'value_domain');
      expect(JSON.stringify(res.body)).toMatch(/duplicate/i);
      expect(await stored()).toEqual(before);
    });

    it('declared over the limit: 413 payload_too_large before reading the body', async () => {
      const before = await stored();
      const body = endlessBody();
      const res = await send(r, body.stream, { 'content-length': String(r.maxBytes + 1) });
      expect(res).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
      // At most what the stream queued on its own before anyone read.
      expect(body.state.pulled).toBeLessThanOrEqual(2 * body.chunkBytes);
      expect(await stored()).toEqual(before);
    });

    it('chunked past the limit: 413 after reading just past it, the stream cancelled', async () => {
      const before = await stored();
      const body = endlessBody();
      const res = await send(r, body.stream);
      expect(res).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
      expect(body.state.pulled).toBeGreaterThan(r.maxBytes);
      expect(body.state.pulled).toBeLessThanOrEqual(r.maxBytes + 3 * body.chunkBytes);
      expect(body.state.cancelled).toBe(true);
      expect(await stored()).toEqual(before);
    });
  });
});
