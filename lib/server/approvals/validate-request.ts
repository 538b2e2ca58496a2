import 'server-only';
import {
  type AgentContext,
  checkValueDomain,
  isInterceptionPoint,
  JCS_SHA256,
  PATTERNS,
  type Verdict,
  validateContextEnvelope,
  validateVerdict,
} from '@checkpoint/agent-hooks';
import { IntakeError } from './errors';
import { type DenySet, parseDenySet } from './validate-deny-set';

/** An approval request (§9) that passed every shape check, plus the HTTP extras. */
export interface ValidRequest {
  contextIdentity: string | null;
  /** `jcs-sha256` (the §10.1 default), a host-defined name, or null with a null identity. */
  identityProvider: string | null;
  verdict: Verdict;
  context: AgentContext;
  sessionLabel?: string;
  agentLabel?: string;
  timeoutMs?: number;
  /** The host's own id for this request, echoed in the callback webhook's payload. */
  requestId?: string;
  /** The composition state at consultation time (validate-deny-set.ts), shown while pending. */
  denySet?: DenySet;
}

/** Every member a request may carry: §9's own and this API's (the OpenAPI document lists them). */
export const REQUEST_MEMBERS: ReadonlySet<string> = new Set([
  'context_identity',
  'interception_point',
  'verdict',
  'context',
  'identity_provider',
  'session',
  'agent',
  'timeout_ms',
  'deny_set',
  'request_id',
]);
export const LABEL_MAX = 200;
export const IDENTITY_MAX = 512;
export const MIN_TIMEOUT_MS = 1000;
/** A host's request id: an opaque token it can match callbacks against. */
export const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * Checks a request the way the engine checks what it builds: the §9 shape,
 * a §5-valid liftable deny (§5.1), a §4 envelope whose point matches, the
 * §4.4 value domain, and the labels and timeout this API adds. Messages name
 * members, never values (§14). Throws IntakeError (400).
 */
export function validateApprovalRequest(body: unknown): ValidRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new IntakeError(
      'request_invalid',
      'The body must be a JSON object (§9 ApprovalRequest).',
    );
  }
  const r = body as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !REQUEST_MEMBERS.has(k));
  if (unknown.length > 0) {
    throw new IntakeError(
      'request_invalid',
      `Unknown member(s): ${unknown.slice(0, 5).join(', ')}.`,
    );
  }
  for (const k of ['context_identity', 'interception_point', 'verdict', 'context']) {
    if (!Object.hasOwn(r, k)) throw new IntakeError('request_invalid', `Missing member ${k} (§9).`);
  }

  const identity = r.context_identity;
  if (identity !== null && (typeof identity !== 'string' || identity.length === 0)) {
    throw new IntakeError(
      'identity_invalid',
      'context_identity must be a non-empty string or null (§9).',
    );
  }
  if (typeof identity === 'string' && identity.length > IDENTITY_MAX) {
    throw new IntakeError(
      'identity_invalid',
      `context_identity is longer than ${IDENTITY_MAX} characters.`,
    );
  }
  const provider = identityProvider(r.identity_provider, identity);

  if (!isInterceptionPoint(r.interception_point)) {
    throw new IntakeError('point_invalid', 'interception_point is not one of the eight §3 points.');
  }
  if (r.interception_point === 'agent_shutdown') {
    // §6.1a: nothing is left to approve at shutdown.
    throw new IntakeError('point_invalid', 'agent_shutdown is never sent for approval (§6.1a).');
  }

  const verdict = validateVerdict(r.verdict);
  if (!verdict.ok) throw new IntakeError('verdict_invalid', verdict.message);
  if (verdict.verdict.decision !== 'deny' || verdict.verdict.approval === undefined) {
    throw new IntakeError(
      'verdict_not_liftable',
      'verdict must be a liftable deny: decision "deny" with an approval block (§5.1).',
    );
  }

  try {
    checkValueDomain(r.context);
  } catch (err) {
    throw new IntakeError(
      'value_domain',
      `context: ${err instanceof Error ? err.message : 'invalid'}`,
    );
  }
  const envelope = validateContextEnvelope(r.context);
  if (!envelope.ok) throw new IntakeError('context_invalid', envelope.message);
  if (envelope.context.interception_point !== r.interception_point) {
    throw new IntakeError('point_invalid', "interception_point differs from the context's.");
  }

  const out: ValidRequest = {
    contextIdentity: identity as string | null,
    identityProvider: provider,
    verdict: verdict.verdict,
    context: envelope.context,
  };
  const session = label(r.session, 'session');
  const agent = label(r.agent, 'agent');
  if (session !== undefined) out.sessionLabel = session;
  if (agent !== undefined) out.agentLabel = agent;
  if (r.timeout_ms !== undefined) {
    const t = r.timeout_ms;
    if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < MIN_TIMEOUT_MS) {
      throw new IntakeError(
        'timeout_invalid',
        `timeout_ms must be an integer of at least ${MIN_TIMEOUT_MS}.`,
      );
    }
    out.timeoutMs = t;
  }
  if (r.deny_set !== undefined && r.deny_set !== null) out.denySet = parseDenySet(r.deny_set);
  if (r.request_id !== undefined && r.request_id !== null) {
    if (typeof r.request_id !== 'string' || !REQUEST_ID.test(r.request_id)) {
      throw new IntakeError(
        'request_id_invalid',
        'request_id must be 1 to 200 printable ASCII characters without spaces.',
      );
    }
    out.requestId = r.request_id;
  }
  return out;
}

/**
 * The provider a request claims. A string identity without a declared
 * provider is `jcs-sha256`, the §10.1 default, and is therefore recomputed;
 * a host with its own provider says so by name (§10.1 name rules).
 */
function identityProvider(value: unknown, identity: unknown): string | null {
  if (value === undefined) return identity === null ? null : JCS_SHA256;
  if (value === null) {
    if (identity !== null) {
      throw new IntakeError(
        'provider_invalid',
        'identity_provider null requires context_identity null.',
      );
    }
    return null;
  }
  if (typeof value !== 'string') {
    throw new IntakeError('provider_invalid', 'identity_provider must be a string or null.');
  }
  if (value === JCS_SHA256) {
    if (identity === null) {
      throw new IntakeError(
        'provider_invalid',
        'jcs-sha256 never produces a null identity (§10.1).',
      );
    }
    return value;
  }
  if (!PATTERNS.providerName.test(value) || value.startsWith('jcs')) {
    throw new IntakeError(
      'provider_invalid',
      'identity_provider must match ^[a-z][a-z0-9_-]*$ and not start with "jcs" (§10.1).',
    );
  }
  if (identity === null) {
    throw new IntakeError(
      'provider_invalid',
      'A declared provider never yields a null identity (§10.1).',
    );
  }
  return value;
}

function label(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > LABEL_MAX) {
    throw new IntakeError(
      'label_invalid',
      `${name} must be a string of at most ${LABEL_MAX} characters.`,
    );
  }
  return value;
}
