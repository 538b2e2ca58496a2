import 'server-only';
import { DeliveryStatus, TicketStatus } from '@/lib/generated/prisma/enums';
import { WEBHOOK_KINDS } from '@/lib/server/webhooks/webhooks';
import { componentRef, type JsonSchema } from './spec-components';

/**
 * Schemas of the bodies the host routes answer with. Responses are built by
 * serializer functions (ticketCreatedBody, webhookJson, deliveryJson), not
 * validated by a schema, so these are written here; the vocabularies come
 * from the database enums, and tests/unit/openapi-agreement.test.ts checks
 * the serializers' output against each schema.
 */

const uuid = { type: 'string', format: 'uuid' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const uri = { type: 'string', format: 'uri' } as const;
const ref = (name: string) => ({ $ref: componentRef(name) });

function closed(properties: Record<string, unknown>, optional: string[] = []): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}

const ticketStatus = { type: 'string', enum: Object.values(TicketStatus) };

const selfTestCase = closed(
  {
    name: { type: 'string', enum: ['approve', 'reject', 'unresolved', 'identity_echo'] },
    ok: { type: 'boolean' },
    detail: { type: 'string', description: "The answer's outcome, or why the case failed." },
    matched: {
      type: 'boolean',
      description: 'Whether the outcome is the one the case asked for (advisory).',
    },
  },
  ['matched'],
);

export function responseSchemas(): Record<string, JsonSchema> {
  return {
    ApprovalAnswer: {
      ...closed(
        {
          outcome: { type: 'string', enum: ['approve', 'reject', 'unresolved'] },
          context_identity: { type: ['string', 'null'] },
          verdict: ref('Verdict'),
          receipt: {
            type: ['string', 'null'],
            description:
              "The decision's signed receipt, a compact JWS (docs/receipts.md); null only when it could not be signed just now.",
          },
        },
        ['verdict'],
      ),
      description:
        "An ApprovalResolution (§9: `verdict` present exactly when the outcome is not `unresolved`; the approve/reject verdict's `evidence` points at the receipt, §5.3) plus `receipt`, which a host strips before handing the resolution to its engine.",
    },
    TicketCreated: {
      ...closed({
        id: uuid,
        status: { ...ticketStatus, description: 'A retry of a decided request returns its state.' },
        expires_at: dateTime,
        context_identity: { type: ['string', 'null'] },
        links: closed({
          self: { ...uri, description: 'GET it (answers at once).' },
          wait: { ...uri, description: 'GET it to long-poll for the resolution.' },
          ui: { ...uri, description: "The ticket's page for reviewers." },
        }),
      }),
      description: 'The ticket: 201 when new, 200 when the same identity was posted before.',
    },
    TicketPending: {
      ...closed({ id: uuid, status: { const: 'pending' }, expires_at: dateTime }),
      description: 'Not decided yet: ask again (the response carries `Retry-After`).',
    },
    RecordsAccepted: closed({
      accepted: { type: 'integer', minimum: 0, description: 'Records stored by this request.' },
      duplicates: {
        type: 'integer',
        minimum: 0,
        description: 'Records already stored, byte for byte (retries): not stored again.',
      },
    }),
    SelfTestResult: closed({
      ok: { type: 'boolean' },
      echoOk: {
        type: 'boolean',
        description: 'False when an answer broke the §9 echo rule: the resolver stays disabled.',
      },
      at: dateTime,
      cases: { type: 'array', items: selfTestCase },
    }),
    Webhook: closed({
      id: uuid,
      kind: { type: 'string', enum: [...WEBHOOK_KINDS] },
      url: { type: 'string' },
      enabled: { type: 'boolean' },
      timeout_ms: { type: 'integer' },
      consecutive_failures: { type: 'integer', minimum: 0 },
      disabled_at: nullableDateTime,
      disabled_reason: { type: ['string', 'null'] },
      self_test: { anyOf: [ref('SelfTestResult'), { type: 'null' }] },
      secrets: {
        type: 'array',
        description: 'The signing secrets in use (never their values) and when each stops.',
        items: closed({ created_at: dateTime, expires_at: nullableDateTime }),
      },
    }),
    WebhookList: closed({
      callback: { anyOf: [ref('Webhook'), { type: 'null' }] },
      resolver: { anyOf: [ref('Webhook'), { type: 'null' }] },
    }),
    WebhookSaved: closed(
      {
        webhook: ref('Webhook'),
        secret: {
          type: 'string',
          description: 'The signing secret, only when the webhook is new: shown this once.',
        },
        self_test: ref('SelfTestResult'),
      },
      ['secret', 'self_test'],
    ),
    SecretRotated: closed({
      secret: { type: 'string', description: 'The new signing secret: shown this once.' },
    }),
    Delivery: closed({
      id: uuid,
      kind: { type: 'string', enum: [...WEBHOOK_KINDS] },
      ticket_id: { type: ['string', 'null'], format: 'uuid' },
      webhook_id: { type: 'string', description: 'The `webhook-id` header, the same on retries.' },
      event_type: { type: 'string' },
      status: { type: 'string', enum: Object.values(DeliveryStatus) },
      attempts: { type: 'integer', minimum: 0 },
      last_status_code: { type: ['integer', 'null'] },
      last_error: { type: ['string', 'null'] },
      latency_ms: { type: ['integer', 'null'] },
      created_at: dateTime,
      next_attempt_at: nullableDateTime,
      delivered_at: nullableDateTime,
    }),
    DeliveryList: closed({ deliveries: { type: 'array', items: ref('Delivery') } }),
    Queued: closed({ queued: { const: true } }),
    Health: closed({ status: { const: 'ok' } }),
  };
}
