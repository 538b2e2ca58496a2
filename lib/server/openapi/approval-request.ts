import 'server-only';
import { JCS_SHA256, PATTERNS } from '@checkpoint/agent-hooks';
import {
  IDENTITY_MAX,
  LABEL_MAX,
  MIN_TIMEOUT_MS,
  REQUEST_ID,
} from '@/lib/server/approvals/validate-request';
import { componentRef, type JsonSchema } from './spec-components';

/**
 * The body of `POST /api/v1/approvals`. Intake is not one schema: it is the
 * engine's §4/§5 checks (validateApprovalRequest), so this composes what
 * they enforce from its parts — §9's ApprovalRequest members from the spec
 * schema, the Verdict and AgentContext components, the `deny_set` zod
 * validator, and the limits validate-request.ts exports. The agreement test
 * pins the member list to REQUEST_MEMBERS and probes every limit.
 */
export function approvalRequestBody(specRequest: JsonSchema): JsonSchema {
  const spec = specRequest.properties as Record<string, JsonSchema>;
  const label = (what: string) => ({
    type: ['string', 'null'],
    maxLength: LABEL_MAX,
    description: `${what}, shown to reviewers.`,
  });
  return {
    type: 'object',
    description:
      "§9 ApprovalRequest (the `ApprovalRequest` component) with `context` required, plus this API's members. The verdict must be a §5-valid liftable deny (§5.1); the context passes the §4 envelope check and the §4.4 value domain.",
    additionalProperties: false,
    required: [...(specRequest.required as string[]), 'context'],
    properties: {
      context_identity: {
        ...spec.context_identity,
        minLength: 1,
        maxLength: IDENTITY_MAX,
        description:
          'The §10 identity of the (host-redacted) context, or null. Posting the same identity again returns the same ticket. For `jcs-sha256` the server recomputes it (422 `identity_mismatch`).',
      },
      interception_point: {
        ...spec.interception_point,
        not: { const: 'agent_shutdown' },
        description: "The context's point; never `agent_shutdown` (§6.1a).",
      },
      verdict: {
        allOf: [
          spec.verdict,
          { $ref: componentRef('Verdict') },
          { type: 'object', required: ['approval'] },
        ],
        description: 'A liftable deny: decision `deny` with an `approval` block (§5.1).',
      },
      context: spec.context,
      identity_provider: {
        anyOf: [
          { const: JCS_SHA256 },
          { type: 'string', pattern: PATTERNS.providerName.source, not: { pattern: '^jcs' } },
          { type: 'null' },
        ],
        description:
          'Who computed `context_identity` (§10.1). Absent: `jcs-sha256` for a string identity, null for a null one. A host-defined provider is taken at its word; null only with a null identity.',
      },
      session: label('A session label'),
      agent: label('An agent label'),
      timeout_ms: {
        type: 'integer',
        minimum: MIN_TIMEOUT_MS,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          "How long reviewers have; at most the host's maximum (400 `timeout_invalid`). Absent: the host's default.",
      },
      deny_set: {
        anyOf: [{ $ref: componentRef('DenySet') }, { type: 'null' }],
        description:
          'The composition state when the approval seam was consulted, shown while pending.',
      },
      request_id: {
        type: ['string', 'null'],
        pattern: REQUEST_ID.source,
        description: "The host's own id for this request, echoed in the callback webhook.",
      },
    },
  };
}
