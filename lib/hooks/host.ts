import {
  type Capabilities,
  checkNamespace,
  checkPolicy,
  DEFAULT_NAMESPACE,
  DEFAULT_RESOLVER_TIMEOUT_MS,
  type HostOptions,
  normalizeInterceptor,
  type PolicyOptions,
  pickComposition,
  pickMode,
  positive,
  resolveProvider,
} from './config.ts';
import { type EmissionSettings, runEmission } from './emission.ts';
import { HooksConfigError } from './errors.ts';
import type { IdentityProvider } from './identity.ts';
import { Session, type SessionOptions } from './session.ts';
import type {
  EmissionResult,
  InterceptionRecord,
  Interceptor,
  InterceptorRegistration,
} from './types.ts';
import { DEFAULTS, type InterceptionPoint, isInterceptionPoint, PATTERNS } from './vocabulary.ts';

/**
 * A configured host (§2): interceptors, composition, mode, identity provider,
 * approval seam, bounds and record sinks. Sessions created from it assign
 * sequence numbers and enforce ordering (§3.1).
 */
export class Host {
  readonly agent: HostOptions['agent'];
  readonly provider: IdentityProvider | null;
  readonly namespace: string;
  readonly capabilities: Readonly<Capabilities>;
  private readonly interceptors: InterceptorRegistration[];
  private readonly options: HostOptions;
  private readonly limits: { maxBytes: number; maxDepth: number };
  private readonly interceptorTimeoutMs: number;
  private readonly resolverTimeoutMs: number;

  constructor(options: HostOptions) {
    if (typeof options?.agent?.id !== 'string')
      throw new HooksConfigError('agent.id must be a string');
    if (
      typeof options.agent.framework !== 'string' ||
      !PATTERNS.framework.test(options.agent.framework)
    ) {
      throw new HooksConfigError('agent.framework must match ^[a-z0-9_-]+$ (§4.1)');
    }
    checkPolicy(options, 'host');
    this.options = { ...options };
    this.agent = { ...options.agent };
    this.provider = resolveProvider(options.identityProvider);
    this.namespace = options.namespace ?? DEFAULT_NAMESPACE;
    checkNamespace(this.namespace, 'host namespace');
    this.capabilities = Object.freeze({ buffered_output: true, ...options.capabilities });
    this.interceptors = (options.interceptors ?? []).map(normalizeInterceptor);
    this.limits = {
      maxBytes: positive(options.limits?.maxBytes, DEFAULTS.maxContextBytes, 'limits.maxBytes'),
      maxDepth: positive(options.limits?.maxDepth, DEFAULTS.maxDepth, 'limits.maxDepth'),
    };
    this.interceptorTimeoutMs = positive(
      options.interceptorTimeoutMs,
      DEFAULTS.interceptorTimeoutMs,
      'interceptorTimeoutMs',
    );
    this.resolverTimeoutMs = positive(
      options.resolverTimeoutMs,
      DEFAULT_RESOLVER_TIMEOUT_MS,
      'resolverTimeoutMs',
    );
    if (options.resolver !== undefined && typeof options.resolver !== 'function') {
      throw new HooksConfigError('resolver must be a function');
    }
    if (options.redactor !== undefined && typeof options.redactor !== 'function') {
      throw new HooksConfigError('redactor must be a function');
    }
  }

  /** Register an interceptor after construction; returns a function that removes it. */
  register(interceptor: Interceptor | InterceptorRegistration): () => void {
    const reg = normalizeInterceptor(interceptor);
    this.interceptors.push(reg);
    return () => {
      const i = this.interceptors.indexOf(reg);
      if (i >= 0) this.interceptors.splice(i, 1);
    };
  }

  get interceptorCount(): number {
    return this.interceptors.length;
  }

  get throwOnBlock(): boolean {
    return this.options.throwOnBlock === true;
  }

  get resurfaceLabels(): boolean {
    return this.options.resurfaceLabels !== false;
  }

  now(): Date {
    return this.options.clock ? this.options.clock() : new Date();
  }

  session(options: SessionOptions = {}): Session {
    return new Session(this, options);
  }

  /**
   * One emission over a context built elsewhere (e.g. received over HTTP):
   * full §4 validation, identity, dispatch and record, but no session
   * ordering. Hosts running an agent loop use `session()`.
   */
  evaluate(context: unknown, policy: PolicyOptions = {}): Promise<EmissionResult> {
    let result: EmissionResult | Promise<EmissionResult>;
    try {
      checkPolicy(policy, 'evaluate');
      const point = (context as { interception_point?: unknown } | null)?.interception_point;
      const settings = this.settingsFor(isInterceptionPoint(point) ? point : 'input', policy);
      result = runEmission(context, settings);
    } catch (error) {
      // A bad policy rejects the promise, as it always has; it never throws synchronously.
      return Promise.reject(error);
    }
    // Synchronous interceptors: one resolved promise, no async frames in between.
    if (result instanceof Promise) return result.then((r) => this.published(r));
    return Promise.resolve(this.published(result));
  }

  private published(result: EmissionResult): EmissionResult {
    this.publish(result.record);
    return result;
  }

  /** @internal Resolve what one emission at `point` runs under; interceptors are snapshotted. */
  settingsFor(point: InterceptionPoint, session: PolicyOptions): EmissionSettings {
    const o = this.options;
    return {
      mode: pickMode(point, session, o),
      composition: pickComposition(point, session, o),
      interceptors: this.interceptors.slice(),
      provider: this.provider,
      seam: o.resolver
        ? {
            resolver: o.resolver,
            redactor: o.redactor,
            resolverTimeoutMs: this.resolverTimeoutMs,
            maxDepth: this.limits.maxDepth,
          }
        : null,
      interceptorTimeoutMs: this.interceptorTimeoutMs,
      maxBytes: this.limits.maxBytes,
      maxDepth: this.limits.maxDepth,
      namespace: this.namespace,
    };
  }

  /** @internal Hand a record to every sink without blocking the emission (§10.3). */
  publish(record: InterceptionRecord): void {
    const sinks = this.options.sinks ?? [];
    if (sinks.length === 0) return;
    const onError = (error: unknown) => {
      try {
        this.options.onSinkError?.(error, record);
      } catch {
        // A failing error handler must not reach the emission either.
      }
    };
    for (const sink of sinks) {
      queueMicrotask(() => {
        try {
          const pending = sink(record);
          if (pending && typeof (pending as Promise<void>).then === 'function') {
            (pending as Promise<void>).then(undefined, onError);
          }
        } catch (error) {
          onError(error);
        }
      });
    }
  }
}

/** Create a host; throws `HooksConfigError` for a configuration the spec forbids. */
export function createHost(options: HostOptions): Host {
  return new Host(options);
}
