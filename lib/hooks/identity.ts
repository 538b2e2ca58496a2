import { canonicalJson } from './canonical-json.ts';
import { HooksConfigError, ValueDomainError } from './errors.ts';
import { carryVouch } from './number-domain.ts';
import { sha256Hex } from './sha256.ts';
import { INTERCEPTION_POINTS, type InterceptionPoint, JCS_SHA256, PATTERNS } from './vocabulary.ts';

/**
 * Context identity (§10). A provider maps an AgentContext to the opaque
 * string the approval seam binds to (§9 echo rule) and records carry (§10.3).
 */
export type IdentityProvider = {
  readonly name: string;
  readonly compute: (ctx: unknown) => string;
  /** Whether equal identities mean equal content; a claim must disclose it (§10.1). */
  readonly contentDerived?: boolean;
};

/**
 * A whitelisted member: `true` keeps the whole value, a list keeps only those
 * subfields of an object (§10.2 nested subfield whitelists).
 */
export type ProjectedField = true | readonly string[];

/** The required core (§4.1): present at every interception point. */
export const IDENTITY_CORE: Readonly<Record<string, ProjectedField>> = Object.freeze({
  spec: true,
  interception_point: true,
  timestamp: true,
  sequence: true,
  agent: Object.freeze(['id', 'framework']),
  session: Object.freeze(['id']),
  target: true,
});

/** The conditional fields of each point (§4.2), with their subfield whitelists (§10.2). */
export const IDENTITY_CONDITIONAL: Readonly<
  Record<InterceptionPoint, Readonly<Record<string, ProjectedField>>>
> = deepFreeze({
  agent_startup: { agent_init: ['tools_registered'] },
  input: { input: ['content', 'role'] },
  pre_model_call: { model: ['id'], messages: true },
  post_model_call: { model: ['id'], response: ['content', 'tool_calls', 'finish_reason'] },
  pre_tool_call: { tool_call: ['id', 'name', 'args'] },
  post_tool_call: { tool_call: ['id', 'name', 'args'], tool_result: ['value', 'is_error'] },
  output: { output: ['content'] },
  agent_shutdown: { summary: ['reason'] },
});

function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value)) {
    if (typeof member === 'object' && member !== null) deepFreeze(member);
  }
  return Object.freeze(value);
}

/** The whole §10.2 whitelist for one point: required core plus that point's conditional fields. */
export function identityWhitelist(
  point: InterceptionPoint,
): Readonly<Record<string, ProjectedField>> {
  return { ...IDENTITY_CORE, ...IDENTITY_CONDITIONAL[point] };
}

/**
 * The closed required+conditional projection ctx_rc (§10.2). Optional and
 * namespaced members are dropped, so adding optional data never perturbs the
 * identity. A missing whitelisted member is refused rather than projected
 * as absent: an identity over a context the schema forbids would look real.
 */
export function projectForIdentity(ctx: unknown): Record<string, unknown> {
  if (!isPlainRecord(ctx)) throw new ValueDomainError('context must be a JSON object (§4)');
  const point = ctx.interception_point;
  if (typeof point !== 'string' || !(INTERCEPTION_POINTS as readonly string[]).includes(point)) {
    throw new ValueDomainError(
      'interception_point is absent or outside §3; no identity over a guessed preimage (§10.2)',
    );
  }
  const projection: Record<string, unknown> = {};
  for (const [field, keep] of Object.entries(identityWhitelist(point as InterceptionPoint))) {
    const value = ctx[field];
    if (value === undefined) {
      throw new ValueDomainError(`${field} is required at ${point} (§4.1, §4.2) at $.${field}`);
    }
    projection[field] = keep === true ? value : pick(value, keep, field, point);
    carryVouch(ctx, field, projection, field);
  }
  return projection;
}

function pick(value: unknown, keep: readonly string[], field: string, point: string) {
  if (!isPlainRecord(value)) {
    throw new ValueDomainError(`${field} must be an object at ${point} (§4.2) at $.${field}`);
  }
  const picked: Record<string, unknown> = {};
  for (const sub of keep) {
    if (value[sub] === undefined) {
      throw new ValueDomainError(
        `${field}.${sub} is required at ${point} (§4.1, §4.2) at $.${field}.${sub}`,
      );
    }
    picked[sub] = value[sub];
    // A number accepted on its JSON token (e.g. tool_result.value 1e16) stays accepted (§10.2).
    carryVouch(value, sub, picked, sub);
  }
  return picked;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** "sha256:" + lowercase hex SHA-256 of the UTF-8 bytes of a canonical string (§10.2). */
export function identityOfCanonical(canonical: string): string {
  return `sha256:${sha256Hex(canonical)}`;
}

/**
 * The default provider (§10.2). Throws ValueDomainError (host_error:context_invalid)
 * when the point is absent or unknown, a whitelisted member is missing, or
 * the projection is outside the §4.4 domain or deeper than §12.3 allows.
 */
export const jcsSha256: IdentityProvider = Object.freeze({
  name: JCS_SHA256,
  contentDerived: true,
  compute: (ctx: unknown) => identityOfCanonical(canonicalJson(projectForIdentity(ctx))),
});

/**
 * A host-defined provider (§10.1). The name rule is enforced, not advisory:
 * it must match ^[a-z][a-z0-9_-]*$ and must not claim the reserved `jcs`
 * prefix. The returned compute fails closed: a throw or a non-string result
 * becomes ValueDomainError (host_error:context_invalid), carrying only the
 * exception's type name, never its message (§6.3).
 */
export function customIdentityProvider(
  name: string,
  compute: (ctx: unknown) => string,
  opts?: { contentDerived?: boolean },
): IdentityProvider {
  if (typeof name !== 'string' || !PATTERNS.providerName.test(name)) {
    throw new HooksConfigError('identity provider name must match ^[a-z][a-z0-9_-]*$ (§10.1)');
  }
  if (name.startsWith('jcs')) {
    throw new HooksConfigError(
      'identity provider names starting with "jcs" are reserved for jcs-sha256 (§10.1)',
    );
  }
  if (typeof compute !== 'function') {
    throw new HooksConfigError('identity provider compute must be a function (§10.1)');
  }
  return Object.freeze({
    name,
    contentDerived: opts?.contentDerived ?? false,
    compute: (ctx: unknown) => {
      let identity: unknown;
      try {
        identity = compute(ctx);
      } catch (error) {
        if (error instanceof ValueDomainError) throw error;
        const type = error instanceof Error ? error.name : typeof error;
        throw new ValueDomainError(`identity provider "${name}" raised ${type} (§10.1)`);
      }
      if (typeof identity !== 'string') {
        throw new ValueDomainError(`identity provider "${name}" returned a non-string (§10.1)`);
      }
      return identity;
    },
  });
}

/** Whether a provider's identities bind content (a claim must say so, §10.1). */
export function isContentDerived(provider: IdentityProvider | null): boolean {
  return provider?.contentDerived === true;
}
