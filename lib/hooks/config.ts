import { HooksConfigError } from './errors.ts';
import { type IdentityProvider, jcsSha256 } from './identity.ts';
import { resolveComposition } from './record.ts';
import type {
  ApprovalRedactor,
  ApprovalResolver,
  Composition,
  InterceptionRecord,
  Interceptor,
  InterceptorRegistration,
  RecordComposition,
  RecordSink,
} from './types.ts';
import {
  DEFAULTS,
  type InterceptionPoint,
  isInterceptionPoint,
  JCS_SHA256,
  MODES,
  type Mode,
  PATTERNS,
  PROFILES,
  type Profile,
  RESERVED_NAMESPACES,
} from './vocabulary.ts';

/** §3.2/§13.1 declared surface. Omitted model or tool calls make those points `adapter_unsupported`. */
export interface Capabilities {
  model_calls?: boolean;
  tool_calls?: boolean;
  parallel_tool_calls?: boolean;
  streaming?: boolean;
  multi_turn?: boolean;
  /** §12.1a: defaults to true; false must be declared explicitly. */
  buffered_output?: boolean;
}

/** Mode and composition, per session or per point (§7.2, §8). */
export interface PolicyOptions {
  mode?: Mode;
  modeByPoint?: Partial<Record<InterceptionPoint, Mode>>;
  composition?: Composition | Profile;
  compositionByPoint?: Partial<Record<InterceptionPoint, Composition | Profile>>;
}

export interface HostOptions extends PolicyOptions {
  agent: { id: string; framework: string; [k: string]: unknown };
  interceptors?: ReadonlyArray<Interceptor | InterceptorRegistration>;
  /** Default `jcs-sha256` (§10.2); `null` means identity-unbound records (§10.1). */
  identityProvider?: IdentityProvider | typeof JCS_SHA256 | null;
  resolver?: ApprovalResolver;
  redactor?: ApprovalRedactor;
  /** Per interceptor; RECOMMENDED default 5000 ms (§7). */
  interceptorTimeoutMs?: number;
  /** Per consultation; humans take minutes. Default 15 minutes. */
  resolverTimeoutMs?: number;
  /** §12.3 bounds; defaults 5 MiB and 128 levels. */
  limits?: { maxBytes?: number; maxDepth?: number };
  sinks?: readonly RecordSink[];
  /** Told about a sink that threw; the emission is never affected. */
  onSinkError?: (error: unknown, record: InterceptionRecord) => void;
  capabilities?: Capabilities;
  /** The host's own extension namespace (§4.6): `source_labels`, `redacted`. Default `host`. */
  namespace?: string;
  /** Opt-in: `emit()` throws `InterceptionBlocked` instead of returning a blocked result. */
  throwOnBlock?: boolean;
  /** Resurface result_labels as `extensions.<ns>.source_labels` on later emissions (§5.4). Default true. */
  resurfaceLabels?: boolean;
  clock?: () => Date;
}

export const DEFAULT_RESOLVER_TIMEOUT_MS = 15 * 60 * 1000;
export const DEFAULT_NAMESPACE = 'host';

export function normalizeInterceptor(
  i: Interceptor | InterceptorRegistration,
): InterceptorRegistration {
  const reg = typeof i === 'function' ? { intercept: i } : i;
  if (typeof reg?.intercept !== 'function')
    throw new HooksConfigError('an interceptor must be a function');
  if (reg.namespace !== undefined) checkNamespace(reg.namespace, 'interceptor namespace');
  if (reg.name !== undefined && typeof reg.name !== 'string') {
    throw new HooksConfigError('an interceptor name must be a string');
  }
  return Object.freeze({ ...reg });
}

export function checkNamespace(ns: string, what: string): void {
  if (typeof ns !== 'string' || !PATTERNS.namespace.test(ns)) {
    throw new HooksConfigError(`${what} must match ^[a-z][a-z0-9_]*$ (§4.6)`);
  }
  if ((RESERVED_NAMESPACES as readonly string[]).includes(ns)) {
    throw new HooksConfigError(`${what} "${ns}" is reserved by the spec (§4.6)`);
  }
}

export function resolveProvider(p: HostOptions['identityProvider']): IdentityProvider | null {
  if (p === undefined || p === JCS_SHA256) return jcsSha256;
  if (p === null) return null;
  if (typeof p !== 'object' || typeof p.compute !== 'function' || typeof p.name !== 'string') {
    throw new HooksConfigError(
      'identityProvider must be "jcs-sha256", null, or an IdentityProvider',
    );
  }
  // §10.1: only the shipped provider may carry a jcs name.
  if (p !== jcsSha256 && (!PATTERNS.providerName.test(p.name) || p.name.startsWith('jcs'))) {
    throw new HooksConfigError(
      'a host-defined provider name must match ^[a-z][a-z0-9_-]*$ and not start with jcs',
    );
  }
  return p;
}

export function checkPolicy(p: PolicyOptions, where: string): void {
  const modes = [p.mode, ...Object.values(p.modeByPoint ?? {})];
  for (const m of modes) {
    if (m !== undefined && !(MODES as readonly string[]).includes(m)) {
      throw new HooksConfigError(`${where}: mode must be enforce or evaluate_only (§8)`);
    }
  }
  for (const key of [
    ...Object.keys(p.modeByPoint ?? {}),
    ...Object.keys(p.compositionByPoint ?? {}),
  ]) {
    if (!isInterceptionPoint(key)) throw new HooksConfigError(`${where}: ${key} is not a §3 point`);
  }
  for (const c of [p.composition, ...Object.values(p.compositionByPoint ?? {})]) {
    if (c !== undefined) toComposition(c, where);
  }
}

const KNOBS = {
  on_approval: ['stop', 'resume'],
  on_disagreement: ['deny', 'approval'],
  on_transform_conflict: ['deny', 'approval'],
} as const;

const resolved = new WeakMap<object, RecordComposition>();
const resolvedProfiles = new Map<string, RecordComposition>();

/** Validate a profile and its knobs; the set is closed (§7.2). The result is shared: don't mutate it. */
export function toComposition(c: Composition | Profile, where = 'composition'): RecordComposition {
  const hit = typeof c === 'string' ? resolvedProfiles.get(c) : c && resolved.get(c);
  if (hit) return hit;
  const out = validateComposition(c, where);
  if (typeof c === 'string') resolvedProfiles.set(c, out);
  else resolved.set(c, out);
  return out;
}

function validateComposition(c: Composition | Profile, where: string): RecordComposition {
  const comp = typeof c === 'string' ? { profile: c } : c;
  if (!(PROFILES as readonly string[]).includes(comp?.profile)) {
    throw new HooksConfigError(`${where}: unknown composition profile (§7.2)`);
  }
  for (const [knob, values] of Object.entries(KNOBS)) {
    const v = (comp as unknown as Record<string, unknown>)[knob];
    if (v !== undefined && !(values as readonly unknown[]).includes(v)) {
      throw new HooksConfigError(`${where}: ${knob} must be one of ${values.join('|')}`);
    }
  }
  return resolveComposition(comp);
}

/** Session settings win over host settings; per-point wins over per-scope default. */
export function pickMode(
  point: InterceptionPoint,
  session: PolicyOptions,
  host: PolicyOptions,
): Mode {
  return (
    session.modeByPoint?.[point] ??
    session.mode ??
    host.modeByPoint?.[point] ??
    host.mode ??
    'enforce'
  );
}

export function pickComposition(
  point: InterceptionPoint,
  session: PolicyOptions,
  host: PolicyOptions,
): RecordComposition {
  const c =
    session.compositionByPoint?.[point] ??
    session.composition ??
    host.compositionByPoint?.[point] ??
    host.composition ??
    'sequential/first_deny';
  return toComposition(c);
}

export function positive(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new HooksConfigError(`${what} must be a positive number`);
  }
  return value;
}

export { DEFAULTS };
