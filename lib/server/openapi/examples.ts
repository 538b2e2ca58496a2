import 'server-only';
import { buildContext, jcsSha256 } from '@checkpoint/agent-hooks';
import { ticketCreatedBody } from '@/lib/server/approvals/http';
import { buildResolution, decisionVerdict } from '@/lib/server/approvals/resolution';
import type { DeliveryRow } from '@/lib/server/webhooks/delivery-log';
import { deliveryJson, webhookJson } from '@/lib/server/webhooks/http';
import { callbackMessageId, RESOLVED_EVENT } from '@/lib/server/webhooks/payload';
import type { SelfTestResult } from '@/lib/server/webhooks/self-test';

/**
 * The document's examples, made by the code that makes the real thing: the
 * context by the engine's builder, its identity by jcs-sha256, the ticket,
 * webhook and delivery bodies by the routes' serializers, the resolutions by
 * the decision code (which checks them as a host would, §9). Fixed values
 * only, so the document is the same on every build.
 */

const ORIGIN = 'https://checkpoint.example.com';
const TICKET_ID = '3f2b8c1e-9a4d-4e7b-8c2a-5d6e7f8a9b0c';
const EXPIRES = new Date('2026-12-02T10:10:00.000Z');

const context = buildContext(
  'pre_tool_call',
  {
    spec: 'agent-hooks/0.1',
    timestamp: '2026-12-02T10:00:00.000Z',
    sequence: 7,
    agent: { id: 'billing-bot', framework: 'openai-agents' },
    session: { id: 'sess-2026-12-02-0042' },
  },
  {
    tool_call: {
      id: 'call_7',
      name: 'wire_transfer',
      args: { to: 'ACME GmbH', amount: 25000, currency: 'EUR' },
    },
  },
);
const identity = jcsSha256.compute(context);

export const approvalRequestExample = {
  context_identity: identity,
  interception_point: 'pre_tool_call',
  verdict: {
    decision: 'deny',
    reason: 'amount_over_threshold',
    message: "Transfers over 10000 need a reviewer's approval.",
    approval: {},
  },
  context,
  session: 'Invoice run 42',
  agent: 'Billing bot',
  timeout_ms: 600_000,
  request_id: 'inv-42-transfer',
  deny_set: {
    composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
    interceptors_registered: 2,
    verdicts: [{ index: 0, decision: 'deny', reason: 'amount_over_threshold', name: 'limits' }],
    decided_by: 0,
    fold_truncated: true,
  },
};

const ticketRef = {
  id: TICKET_ID,
  hostId: '00000000-0000-0000-0000-000000000001',
  expiresAt: EXPIRES,
  contextIdentity: identity,
};
export const ticketCreatedExample = ticketCreatedBody({ ...ticketRef, status: 'pending' }, ORIGIN);
export const ticketRepeatedExample = ticketCreatedBody(
  { ...ticketRef, status: 'approved' },
  ORIGIN,
);
export const ticketPendingExample = {
  id: TICKET_ID,
  status: 'pending',
  expires_at: EXPIRES.toISOString(),
};

const decided = { context, redactedPaths: [] };
export const resolutionExamples = {
  approve: buildResolution(identity, 'approve', decisionVerdict('approve', decided)),
  approveWithEdit: buildResolution(
    identity,
    'approve',
    decisionVerdict('approve', { ...decided, edit: { path: '$target.amount', value: 9000 } }),
  ),
  reject: buildResolution(
    identity,
    'reject',
    decisionVerdict('reject', { ...decided, reason: 'No transfers to new payees this week.' }),
  ),
  unresolved: buildResolution(identity, 'unresolved'),
};

export const recordExample = {
  interception_point: 'pre_tool_call',
  mode: 'enforce',
  verdict: { decision: 'deny', reason: 'amount_over_threshold', approval: {} },
  input_identity: identity,
  enforced_identity: identity,
  identity_provider: 'jcs-sha256',
  session_id: 'sess-2026-12-02-0042',
  sequence: 7,
  timestamp: '2026-12-02T10:00:00.000Z',
  decided_by: 0,
  composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
  verdicts: [{ index: 0, decision: 'deny', reason: 'amount_over_threshold', name: 'limits' }],
  fold_truncated: true,
  resolved_by: 'approval',
  interceptors_registered: 2,
};

export const selfTestExample = {
  ok: true,
  echoOk: true,
  at: '2026-12-02T09:00:00.000Z',
  cases: (['approve', 'reject', 'unresolved', 'identity_echo'] as const).map((name) => ({
    name,
    ok: true,
    detail: name === 'identity_echo' ? 'approve' : name,
    matched: true,
  })),
} satisfies SelfTestResult;

const CALLBACK_ID = '6a1f0c2e-4b3d-4c5e-9f8a-7b6c5d4e3f2a';
const WEBHOOK_CREATED = new Date('2026-12-01T08:00:00.000Z');
export const callbackWebhookExample = webhookJson({
  id: CALLBACK_ID,
  kind: 'callback',
  url: 'https://agents.example.com/checkpoint/callback',
  enabled: true,
  timeoutMs: 5000,
  consecutiveFailures: 0,
  disabledAt: null,
  disabledReason: null,
  selfTest: null,
  secrets: [{ id: 's1', createdAt: WEBHOOK_CREATED, expiresAt: null }],
});
export const resolverWebhookExample = webhookJson({
  id: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  kind: 'resolver',
  url: 'https://policy.example.com/checkpoint/resolve',
  enabled: true,
  timeoutMs: 10000,
  consecutiveFailures: 0,
  disabledAt: null,
  disabledReason: null,
  selfTest: selfTestExample,
  secrets: [{ id: 's2', createdAt: WEBHOOK_CREATED, expiresAt: null }],
});

/** The shape generateWebhookSecret() returns (32 random bytes, base64). */
export const SECRET_EXAMPLE = 'whsec_3q2+7w8K1ZRdVw0b0vB5yJm6cQ9n4fXlHs2TgPa1uYE=';

const delivery: DeliveryRow = {
  id: 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f',
  kind: 'callback',
  ticketId: TICKET_ID,
  messageId: callbackMessageId(CALLBACK_ID, TICKET_ID),
  eventType: RESOLVED_EVENT,
  status: 'delivered',
  attempts: 1,
  lastStatusCode: 200,
  lastError: null,
  latencyMs: 84,
  createdAt: new Date('2026-12-02T10:04:12.000Z'),
  nextAttemptAt: null,
  deliveredAt: new Date('2026-12-02T10:04:12.084Z'),
};
export const deliveryListExample = { deliveries: [deliveryJson(delivery)] };
