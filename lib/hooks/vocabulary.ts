/**
 * The closed vocabularies of Agent Hooks 0.1, frozen, each with its derived
 * union type. Nothing outside these sets is ever produced by the engine.
 */

/** The spec version this engine targets (§4.1 `spec`). */
export const SPEC_VERSION = 'agent-hooks/0.1' as const;

/** The eight interception points, in §3 table order. */
export const INTERCEPTION_POINTS = Object.freeze([
  'agent_startup',
  'input',
  'pre_model_call',
  'post_model_call',
  'pre_tool_call',
  'post_tool_call',
  'output',
  'agent_shutdown',
] as const);
export type InterceptionPoint = (typeof INTERCEPTION_POINTS)[number];

export function isInterceptionPoint(value: unknown): value is InterceptionPoint {
  return typeof value === 'string' && (INTERCEPTION_POINTS as readonly string[]).includes(value);
}

/** Points at which a transform is forbidden (§3 table, §4.3). */
export const TRANSFORM_FORBIDDEN_POINTS = Object.freeze([
  'agent_startup',
  'agent_shutdown',
] as const satisfies readonly InterceptionPoint[]);

/** Verdict decisions (§5). */
export const DECISIONS = Object.freeze(['allow', 'deny', 'transform'] as const);
export type Decision = (typeof DECISIONS)[number];

/** Reserved host reasons (§11): the only `host_error:*` values a host may produce. */
export const HOST_ERRORS = Object.freeze({
  contextInvalid: 'host_error:context_invalid',
  interceptorFailed: 'host_error:interceptor_failed',
  interceptorTimeout: 'host_error:interceptor_timeout',
  verdictInvalid: 'host_error:verdict_invalid',
  transformInvalid: 'host_error:transform_invalid',
  transformTargetForbidden: 'host_error:transform_target_forbidden',
  transformConflict: 'host_error:transform_conflict',
  compositionDisagreement: 'host_error:composition_disagreement',
  approvalResolverFailed: 'host_error:approval_resolver_failed',
  approvalUnresolved: 'host_error:approval_unresolved',
  approvalIdentityMismatch: 'host_error:approval_identity_mismatch',
  adapterUnsupported: 'host_error:adapter_unsupported',
  noInterceptor: 'host_error:no_interceptor',
  streamingUnsupported: 'host_error:streaming_unsupported',
} as const);
export type HostErrorReason = (typeof HOST_ERRORS)[keyof typeof HOST_ERRORS];
export const RESERVED_REASONS: readonly HostErrorReason[] = Object.freeze(
  Object.values(HOST_ERRORS),
);

/** The prefix no interceptor may use (§5, §11). */
export const HOST_ERROR_PREFIX = 'host_error:' as const;

/** Composition profiles (§7.2); the set is closed. */
export const PROFILES = Object.freeze([
  'sequential/first_deny',
  'sequential/run_all',
  'parallel/strictest',
  'parallel/unanimous',
] as const);
export type Profile = (typeof PROFILES)[number];

/** Enforcement modes (§8). */
export const MODES = Object.freeze(['enforce', 'evaluate_only'] as const);
export type Mode = (typeof MODES)[number];

/** Approval resolution outcomes (§9). */
export const OUTCOMES = Object.freeze(['approve', 'reject', 'unresolved'] as const);
export type Outcome = (typeof OUTCOMES)[number];

/** Input roles (§4.2 `input.role`). */
export const INPUT_ROLES = Object.freeze(['user', 'system', 'external'] as const);
export type InputRole = (typeof INPUT_ROLES)[number];

/** Shutdown reasons (§4.2 `summary.reason`). */
export const SHUTDOWN_REASONS = Object.freeze(['completed', 'error', 'cancelled'] as const);
export type ShutdownReason = (typeof SHUTDOWN_REASONS)[number];

/** Extension namespaces reserved by the spec (§4.6). */
export const RESERVED_NAMESPACES = Object.freeze(['acs', 'ctk', 'agent_hooks'] as const);

/** Patterns the spec pins (§4.1, §4.6, §10.1). */
export const PATTERNS = Object.freeze({
  spec: /^agent-hooks\/\d+\.\d+$/,
  framework: /^[a-z0-9_-]+$/,
  namespace: /^[a-z][a-z0-9_]*$/,
  providerName: /^[a-z][a-z0-9_-]*$/,
});

/** The default identity provider's name (§10.2). */
export const JCS_SHA256 = 'jcs-sha256' as const;

/** Defaults the spec recommends (§7, §12.3, §5.3, §10.3). */
export const DEFAULTS = Object.freeze({
  interceptorTimeoutMs: 5000,
  maxContextBytes: 5 * 1024 * 1024,
  maxDepth: 128,
  evidenceMaxBytes: 10240,
  recordMessageMaxBytes: 256,
});

/** Largest integer a double holds exactly: ±(2^53−1) (§4.4, §10.2). */
export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
