import 'server-only';
import { MAX_REQUEST_BYTES } from '@/lib/server/approvals/intake';
import { MAX_WAIT_MS } from '@/lib/server/approvals/wait';
import { MAX_BODY_BYTES, MAX_RECORDS_PER_REQUEST } from '@/lib/server/records/limits';
import { agentIdParam, DROPPED_HEADER } from '@/lib/server/records/receive';
import {
  approvalRequestExample,
  recordExample,
  resolutionExamples,
  ticketCreatedExample,
  ticketPendingExample,
  ticketRepeatedExample,
} from './examples';
import {
  HOST_AUTH,
  JSON_BODY,
  jsonContent,
  jsonResponse,
  NO_STORE,
  type OperationSpec,
  pathParam,
  ref,
} from './operation';
import { zodJsonSchema } from './zod-schema';

/** An illustrative receipt (docs/receipts.md), signed by a throwaway key. */
const RECEIPT_EXAMPLE =
  'eyJhbGciOiJFZERTQSIsImtpZCI6ImtPdVdtTU5VbjZpTFprV0swQ1pNaXBZZDFvOHZMVkctV3lvS3h6NGY1SFUiLCJ0eXAiOiJjaGVja3BvaW50LXJlY2VpcHQrandzIn0.eyJjb250ZXh0X2lkZW50aXR5Ijoic2hhMjU2OjJmMWMiLCJkZWNpZGVkX2F0IjoiMjAyNi0xMi0wMlQxMDowMzoxMi4zNDVaIiwiZGVjaWRlciI6eyJhdXRoIjoicGFzc3dvcmQiLCJlbWFpbCI6InJpdGFAZXhhbXBsZS5jb20iLCJraW5kIjoidXNlciIsInVzZXJfaWQiOiI1ZTJhOWM0MS03YjNkLTRmNmUtOGExMC1jOWQyYjRlNmY4MTMifSwiaG9zdF9pZCI6IjBiNmYxYzJlLThkNGEtNGUzYi1hMWY5LTVjN2QyZTliM2E2MCIsImlhdCI6MTc5NjIwNTc5MiwiaW50ZXJjZXB0aW9uX3BvaW50IjoicHJlX3Rvb2xfY2FsbCIsImlzcyI6Imh0dHBzOi8vY2hlY2twb2ludC5leGFtcGxlLmNvbSIsIm91dGNvbWUiOiJhcHByb3ZlIiwicmVxdWVzdF9pZCI6Imludi00Mi10cmFuc2ZlciIsInRpY2tldF9pZCI6IjdkOWMxZTUyLTNmMGEtNGM4ZS05YjFkLTJhNmY0ZThjMGIxNyJ9.X9X47zmEHIfcRYa_QpxLzvJOGNQ7U1ih5d4JQN-mUYzaO3PoGMPxWZ1ImiuC6HHp--8sD2gob1-7ExFWFRmHCA';

/** The long-poll's decided answer: the resolution and its receipt. */
const answer = (resolution: object) => ({ ...resolution, receipt: RECEIPT_EXAMPLE });

/** POST /api/v1/approvals, GET /api/v1/approvals/{id} (and its receipt) and POST /api/v1/records. */
export function approvalOperations(): Record<string, Record<string, OperationSpec>> {
  return {
    '/api/v1/approvals': {
      post: {
        operationId: 'createApproval',
        tags: ['Approvals'],
        summary: 'Ask for approval',
        description: `A host's approval seam (§9) hands Checkpoint a liftable deny: a ticket is opened for reviewers (or the host's automated resolver). Idempotent: the same \`context_identity\` again returns the same ticket with 200, whatever its state. Bodies up to ${MAX_REQUEST_BYTES} bytes; the raw text is checked against the §4.4 value domain before any parse. A refused request stores nothing.`,
        requestBody: {
          required: true,
          content: jsonContent(ref('CreateApproval'), {
            wireTransfer: { summary: 'A transfer over the limit', value: approvalRequestExample },
          }),
        },
        responses: {
          '201': jsonResponse('A new ticket.', ref('TicketCreated'), {
            created: { summary: 'New ticket', value: ticketCreatedExample },
          }),
          '200': jsonResponse(
            'The ticket this identity opened before (a retry), in its current state.',
            ref('TicketCreated'),
            { repeated: { summary: 'Retry of a decided request', value: ticketRepeatedExample } },
          ),
        },
        errors: [
          ...HOST_AUTH,
          ...JSON_BODY,
          'identity_invalid',
          'provider_invalid',
          'point_invalid',
          'verdict_invalid',
          'verdict_not_liftable',
          'context_invalid',
          'label_invalid',
          'timeout_invalid',
          'deny_set_invalid',
          'request_id_invalid',
          'identity_mismatch',
          'redaction_required',
          'redaction_paths_invalid',
          'nul_character',
        ],
      },
    },
    '/api/v1/approvals/{id}': {
      get: {
        operationId: 'getApproval',
        tags: ['Approvals'],
        summary: 'Wait for the resolution',
        description: `Long-poll: waits up to \`wait\` seconds (at most ${MAX_WAIT_MS / 1000}) for the ticket's §9 ApprovalResolution. 200 once decided or expired (\`unresolved\`); 202 while pending — ask again. Another host's ticket is 404.`,
        parameters: [
          pathParam('id', { type: 'string', format: 'uuid' }, 'The ticket id from the 201.'),
          {
            name: 'wait',
            in: 'query',
            required: false,
            description: `Seconds to wait for a decision; absent or 0 answers at once, more than ${MAX_WAIT_MS / 1000} waits ${MAX_WAIT_MS / 1000}.`,
            schema: { type: 'integer', minimum: 0, maximum: 999_999, default: 0 },
          },
        ],
        responses: {
          '200': jsonResponse(
            'The resolution (§9), which the host validates and echoes nothing back, with the signed receipt of the decision.',
            ref('ApprovalAnswer'),
            {
              approve: { summary: 'Approved', value: answer(resolutionExamples.approve) },
              approveWithEdit: {
                summary: 'Approved with an edit (a transform)',
                value: answer(resolutionExamples.approveWithEdit),
              },
              reject: { summary: 'Rejected', value: answer(resolutionExamples.reject) },
              unresolved: { summary: 'Expired', value: answer(resolutionExamples.unresolved) },
            },
            NO_STORE,
          ),
          '202': jsonResponse(
            'Still pending.',
            ref('TicketPending'),
            { pending: { summary: 'Pending', value: ticketPendingExample } },
            {
              'Retry-After': {
                description: 'Seconds before asking again.',
                schema: { type: 'integer' },
              },
              ...NO_STORE,
            },
          ),
        },
        errors: [...HOST_AUTH, 'not_found', 'wait_invalid'],
      },
    },
    '/api/v1/approvals/{id}/receipt': {
      get: {
        operationId: 'getApprovalReceipt',
        tags: ['Approvals'],
        summary: 'The signed receipt of a decision',
        description:
          "The decision's signed approval receipt: a compact JWS (`alg: EdDSA`, `typ: checkpoint-receipt+jws`) over who decided what, when, for which context identity; verify it against `/.well-known/jwks.json` (docs/receipts.md). The URL the released verdict's `evidence.verification_pointers.receipt` names (§5.3). Readable with the ticket's host key (another host's ticket is 404) or a signed-in admin, reviewer or auditor session. 404 while the ticket is pending.",
        parameters: [pathParam('id', { type: 'string', format: 'uuid' }, 'The ticket id.')],
        responses: {
          '200': {
            description: 'The receipt, a compact JWS (RFC 7515 §7.1).',
            headers: NO_STORE,
            content: {
              'application/jose': {
                schema: {
                  type: 'string',
                  pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
                },
                examples: { receipt: { summary: 'A receipt', value: RECEIPT_EXAMPLE } },
              },
            },
          },
        },
        errors: [...HOST_AUTH, 'forbidden', 'password_change_required', 'not_found'],
      },
    },
    '/api/v1/records': {
      post: {
        operationId: 'ingestRecords',
        tags: ['Records'],
        summary: 'Send interception records',
        description: `InterceptionRecords (§10.3) for the audit store: a JSON array or NDJSON, up to ${MAX_RECORDS_PER_REQUEST} records in ${MAX_BODY_BYTES} bytes. All or nothing: 200 only after commit; a refused record refuses the batch (\`details.errors\` lists each by index). A record already stored byte for byte counts as a duplicate.`,
        parameters: [
          {
            name: 'agent_id',
            in: 'query',
            required: false,
            description: 'Stored with every record (records carry no agent id, §10.3).',
            schema: zodJsonSchema(agentIdParam),
          },
          {
            name: DROPPED_HEADER,
            in: 'header',
            required: false,
            description:
              "A sink's running total of records it had to drop; each increase is audited.",
            schema: { type: 'integer', minimum: 0 },
          },
        ],
        requestBody: {
          required: true,
          content: {
            ...jsonContent(
              {
                type: 'array',
                maxItems: MAX_RECORDS_PER_REQUEST,
                items: ref('InterceptionRecord'),
              },
              { one: { summary: 'One record', value: [recordExample] } },
            ),
            'application/x-ndjson': {
              schema: { type: 'string', description: 'One InterceptionRecord per line.' },
              example: `${JSON.stringify(recordExample)}\n`,
            },
          },
        },
        responses: {
          '200': jsonResponse('Stored.', ref('RecordsAccepted'), {
            stored: { summary: 'Stored', value: { accepted: 1, duplicates: 0 } },
          }),
        },
        errors: [...HOST_AUTH, ...JSON_BODY, 'records_invalid', 'record_conflict', 'nul_character'],
      },
    },
  };
}
