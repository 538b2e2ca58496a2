import 'server-only';
import { deliveriesQuery } from '@/lib/server/webhooks/http';
import { TIMEOUT_LIMITS, WEBHOOK_KINDS } from '@/lib/server/webhooks/webhooks';
import {
  callbackWebhookExample,
  deliveryListExample,
  resolverWebhookExample,
  SECRET_EXAMPLE,
  selfTestExample,
} from './examples';
import {
  HOST_AUTH,
  JSON_BODY,
  jsonContent,
  jsonResponse,
  type OperationSpec,
  pathParam,
  queryParams,
  ref,
} from './operation';
import { zodJsonSchema } from './zod-schema';

const kindParam = pathParam(
  'kind',
  { type: 'string', enum: [...WEBHOOK_KINDS] },
  '`callback` receives resolutions; `resolver` is consulted before a human.',
);
const limits = WEBHOOK_KINDS.map((k) => `${k} ${TIMEOUT_LIMITS[k][0]}–${TIMEOUT_LIMITS[k][1]} ms`);
const TAGS = ['Webhooks'];

/** The calling host's webhooks: /api/v1/webhooks/**. */
export function webhookOperations(): Record<string, Record<string, OperationSpec>> {
  return {
    '/api/v1/webhooks': {
      get: {
        operationId: 'listWebhooks',
        tags: TAGS,
        summary: "The host's webhooks",
        description:
          'The callback and the resolver of the calling host (null when not set); never a secret.',
        responses: {
          '200': jsonResponse('Both kinds.', ref('WebhookList'), {
            both: {
              summary: 'Both set',
              value: { callback: callbackWebhookExample, resolver: resolverWebhookExample },
            },
          }),
        },
        errors: HOST_AUTH,
      },
    },
    '/api/v1/webhooks/{kind}': {
      put: {
        operationId: 'saveWebhook',
        tags: TAGS,
        summary: 'Register or re-point a webhook',
        description: `The URL passes the SSRF guard (https; plain http to loopback only where allowed). Timeouts: ${limits.join(', ')} (default the maximum). A new webhook answers 201 with its signing secret, shown this once. A resolver is self-tested at once and stays disabled if the test fails.`,
        parameters: [kindParam],
        requestBody: {
          required: true,
          content: jsonContent(ref('SaveWebhook'), {
            callback: {
              summary: 'A callback',
              value: { url: 'https://agents.example.com/checkpoint/callback', timeout_ms: 5000 },
            },
          }),
        },
        responses: {
          '201': jsonResponse('Created; the secret is shown this once.', ref('WebhookSaved'), {
            created: {
              summary: 'New callback',
              value: { webhook: callbackWebhookExample, secret: SECRET_EXAMPLE },
            },
          }),
          '200': jsonResponse('Re-pointed; the secrets stay.', ref('WebhookSaved'), {
            resolver: {
              summary: 'Resolver re-pointed and self-tested',
              value: { webhook: resolverWebhookExample, self_test: selfTestExample },
            },
          }),
        },
        errors: [
          ...HOST_AUTH,
          ...JSON_BODY,
          'webhook_kind_invalid',
          'webhook_url_invalid',
          'webhook_url_scheme',
          'webhook_url_blocked',
          'webhook_dns_failed',
          'webhook_timeout_invalid',
          'signing_secret_unreadable',
        ],
      },
      delete: {
        operationId: 'deleteWebhook',
        tags: TAGS,
        summary: 'Remove a webhook',
        description: 'Its pending deliveries go with it.',
        parameters: [kindParam],
        responses: { '204': { description: 'Removed.' } },
        errors: [...HOST_AUTH, 'webhook_kind_invalid', 'not_found'],
      },
    },
    '/api/v1/webhooks/{kind}/rotate': {
      post: {
        operationId: 'rotateWebhookSecret',
        tags: TAGS,
        summary: 'Rotate the signing secret',
        description:
          'A new secret, shown this once; the current ones keep signing (both signatures are sent) for `overlap_seconds` (default 24 h).',
        parameters: [kindParam],
        requestBody: {
          required: true,
          content: jsonContent(ref('RotateWebhookSecret'), {
            hour: { summary: 'One hour of overlap', value: { overlap_seconds: 3600 } },
            default: { summary: 'The default overlap', value: {} },
          }),
        },
        responses: {
          '200': jsonResponse('The new secret.', ref('SecretRotated'), {
            rotated: { summary: 'Rotated', value: { secret: SECRET_EXAMPLE } },
          }),
        },
        errors: [...HOST_AUTH, ...JSON_BODY, 'webhook_kind_invalid', 'secret_invalid', 'not_found'],
      },
    },
    '/api/v1/webhooks/{kind}/self-test': {
      post: {
        operationId: 'selfTestResolver',
        tags: TAGS,
        summary: 'Self-test the resolver',
        description:
          'Sends the four synthetic cases now and returns the result; a failure disables the resolver, a pass does not enable it. Only a resolver has a self-test.',
        parameters: [
          pathParam('kind', { type: 'string', enum: ['resolver'] }, 'Always `resolver`.'),
        ],
        responses: {
          '200': jsonResponse('The result.', ref('SelfTestResult'), {
            passed: { summary: 'Passed', value: selfTestExample },
          }),
        },
        errors: [...HOST_AUTH, 'not_found'],
      },
    },
    '/api/v1/webhooks/deliveries': {
      get: {
        operationId: 'listWebhookDeliveries',
        tags: TAGS,
        summary: 'The delivery log',
        description:
          "The calling host's deliveries (callbacks and resolver consultations), newest first. Unknown query parameters are refused.",
        parameters: queryParams(zodJsonSchema(deliveriesQuery), {
          limit: 'How many of the newest deliveries.',
        }),
        responses: {
          '200': jsonResponse('The newest deliveries.', ref('DeliveryList'), {
            one: { summary: 'One delivered callback', value: deliveryListExample },
          }),
        },
        errors: [...HOST_AUTH, 'request_invalid'],
      },
    },
    '/api/v1/webhooks/deliveries/{id}/redeliver': {
      post: {
        operationId: 'redeliverWebhookDelivery',
        tags: TAGS,
        summary: 'Redeliver',
        description:
          'One more attempt, now, with the same `webhook-id` (receivers deduplicate on it).',
        parameters: [
          pathParam('id', { type: 'string', format: 'uuid' }, 'A delivery id from the log.'),
        ],
        responses: {
          '202': jsonResponse('Queued.', ref('Queued'), {
            queued: { summary: 'Queued', value: { queued: true } },
          }),
        },
        errors: [...HOST_AUTH, 'not_found'],
      },
    },
  };
}
