import {
  callModel,
  callModelStream,
  callTool,
  type ModelOutcome,
  type ModelRequest,
  type ToolOutcome,
} from './actions.ts';
import { InterceptionBlocked } from './blocked.ts';
import type { PolicyOptions } from './config.ts';
import { checkPolicy } from './config.ts';
import {
  buildContext,
  type ContextCore,
  type Message,
  type PointFields,
  type ToolCall,
} from './context-builder.ts';
import { type Preempt, runEmission } from './emission.ts';
import type { StreamChunk } from './streaming.ts';
import type { Host } from './host.ts';
import { SessionOrdering } from './ordering.ts';
import { isPlainObject } from './plain.ts';
import type { AgentContext, EmissionResult } from './types.ts';
import {
  HOST_ERRORS,
  type InputRole,
  type InterceptionPoint,
  type ShutdownReason,
} from './vocabulary.ts';

export interface SessionOptions extends PolicyOptions {
  id?: string;
  /** Optional session fields (§4.5) such as `started_at` or `turn`. */
  fields?: Record<string, unknown>;
}

/** Optional (§4.5) and extension (§4.6) fields a caller adds to one emission. */
export type ExtraFields = Record<string, unknown>;

const MODEL_POINTS: readonly string[] = ['pre_model_call', 'post_model_call'];
const TOOL_POINTS: readonly string[] = ['pre_tool_call', 'post_tool_call'];

/**
 * One agent session (§3.1): assigns `sequence` atomically (synchronously, at
 * the moment an emission starts, so concurrent emissions get unique, totally
 * ordered numbers), checks ordering, resurfaces result labels (§5.4).
 */
export class Session {
  readonly id: string;
  private nextSequence = 0;
  private readonly ordering = new SessionOrdering();
  private readonly labels = new Map<string, string[]>();
  private readonly policy: PolicyOptions;
  private readonly fields: Record<string, unknown>;

  constructor(
    readonly host: Host,
    options: SessionOptions,
  ) {
    checkPolicy(options, 'session');
    // Web Crypto's UUID: the same global in Node ≥ 20 and in browsers.
    this.id = options.id ?? globalThis.crypto.randomUUID();
    this.policy = { ...options };
    this.fields = { ...options.fields };
  }

  /** True once agent_startup was denied: only agent_shutdown may follow (§6.1a). */
  get startupBlocked(): boolean {
    return this.ordering.startupBlocked;
  }

  get closed(): boolean {
    return this.ordering.closed;
  }

  /** Labels persisted so far, per namespace (§5.4). */
  sourceLabels(): Record<string, string[]> {
    return Object.fromEntries([...this.labels].map(([ns, l]) => [ns, l.slice()]));
  }

  /**
   * Build the context for `point` and run one emission. Never throws unless
   * the host opted into `throwOnBlock`.
   */
  async emit<P extends InterceptionPoint>(
    point: P,
    fields: PointFields[P] & ExtraFields,
  ): Promise<EmissionResult> {
    const core: ContextCore = {
      timestamp: new Date(0).toISOString(),
      sequence: this.nextSequence++,
      agent: { ...this.host.agent },
      session: { ...this.fields, id: this.id },
    };
    let ctx: AgentContext;
    try {
      core.timestamp = this.host.now().toISOString();
      ctx = buildContext(point, core, this.withLabels(point, fields));
    } catch {
      // §6.3: a context the host cannot construct is a context_invalid deny, not an exception.
      const partial = { ...core, interception_point: point } as unknown as AgentContext;
      return this.run(partial, {
        reason: HOST_ERRORS.contextInvalid,
        message: '§4: the context could not be built',
      });
    }
    return this.run(ctx);
  }

  /**
   * Emit a context the caller built whole (e.g. a CTK fixture). Its sequence
   * must be above every earlier one; ordering is checked like `emit`.
   */
  async emitContext(context: AgentContext): Promise<EmissionResult> {
    const seq = isPlainObject(context) ? context.sequence : undefined;
    if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= this.nextSequence) {
      this.nextSequence = seq + 1;
      return this.run(context);
    }
    return this.run(context, {
      reason: HOST_ERRORS.contextInvalid,
      message: '§3.1: sequence is not strictly increasing within the session',
    });
  }

  private async run(ctx: AgentContext, violation?: Preempt): Promise<EmissionResult> {
    const point = ctx.interception_point;
    const settings = this.host.settingsFor(point, this.policy);
    let before = violation;
    let after: Preempt | undefined;
    if (!before && this.unsupported(point)) {
      after = {
        reason: HOST_ERRORS.adapterUnsupported,
        message: `the host declared no support for ${point} (§3.2)`,
      };
    }
    if (!before) {
      const message = this.ordering.check(point, ctx);
      if (message) before = { reason: HOST_ERRORS.contextInvalid, message };
    }
    const result = await runEmission(ctx, settings, { before, after });
    this.ordering.settle(point, ctx, result.proceed, before !== undefined);
    if (result.proceed && point !== 'agent_shutdown') this.keepLabels(result.labelsByNamespace);
    this.host.publish(result.record);
    // §6.1a: a block at agent_shutdown imposes nothing, so it never throws either.
    if (!result.proceed && this.host.throwOnBlock && point !== 'agent_shutdown') {
      throw new InterceptionBlocked(result);
    }
    return result;
  }

  /** @internal Emit a host self-verdict without dispatch (§12.1 streaming_unsupported). */
  async emitSelfVerdict<P extends InterceptionPoint>(
    point: P,
    fields: PointFields[P] & ExtraFields,
    verdict: Preempt,
  ): Promise<EmissionResult> {
    const ctx = buildContext(
      point,
      {
        timestamp: this.host.now().toISOString(),
        sequence: this.nextSequence++,
        agent: { ...this.host.agent },
        session: { ...this.fields, id: this.id },
      },
      this.withLabels(point, fields),
    );
    const message = this.ordering.check(point, ctx);
    const before: Preempt | undefined = message
      ? { reason: HOST_ERRORS.contextInvalid, message }
      : undefined;
    const result = await runEmission(ctx, this.host.settingsFor(point, this.policy), {
      before,
      after: verdict,
    });
    this.ordering.settle(point, ctx, false, before !== undefined);
    this.host.publish(result.record);
    return { ...result, proceed: false };
  }

  private unsupported(point: InterceptionPoint): boolean {
    const caps = this.host.capabilities;
    return (
      (caps.model_calls === false && MODEL_POINTS.includes(point)) ||
      (caps.tool_calls === false && TOOL_POINTS.includes(point))
    );
  }

  private keepLabels(byNamespace: Record<string, string[]>): void {
    for (const [ns, labels] of Object.entries(byNamespace)) {
      const list = this.labels.get(ns) ?? [];
      for (const l of labels) if (!list.includes(l)) list.push(l);
      this.labels.set(ns, list);
    }
  }

  /** §5.4: resurface persisted labels as `extensions.<ns>.source_labels`, never clobbering host data. */
  private withLabels<F extends ExtraFields>(point: InterceptionPoint, fields: F): F {
    if (!this.host.resurfaceLabels || this.labels.size === 0 || point === 'agent_startup')
      return fields;
    const given = fields.extensions;
    if (given !== undefined && !isPlainObject(given)) return fields;
    const extensions: Record<string, unknown> = { ...given };
    for (const [ns, labels] of this.labels) {
      const existing = extensions[ns];
      if (existing === undefined) extensions[ns] = { source_labels: labels.slice() };
      else if (isPlainObject(existing)) {
        const prior = Array.isArray(existing.source_labels) ? existing.source_labels : [];
        extensions[ns] = { ...existing, source_labels: [...new Set([...prior, ...labels])] };
      }
    }
    return { ...fields, extensions };
  }

  // Convenience points (§4.2). The bracketed actions live in actions.ts.

  start(init: { tools_registered: string[]; [k: string]: unknown }, extra: ExtraFields = {}) {
    return this.emit('agent_startup', { ...extra, agent_init: init });
  }

  input(content: unknown, role: InputRole = 'user', extra: ExtraFields = {}) {
    return this.emit('input', { ...extra, input: { content, role } });
  }

  output(content: unknown, extra: ExtraFields = {}) {
    return this.emit('output', { ...extra, output: { content } });
  }

  /** §6.1a: after a denied startup the reason is `error` whatever the caller says. */
  shutdown(reason: ShutdownReason = 'completed', extra: ExtraFields = {}) {
    const effective = this.startupBlocked ? 'error' : reason;
    return this.emit('agent_shutdown', { ...extra, summary: { reason: effective } });
  }

  /** pre_tool_call → tool → post_tool_call, with §6, §6.1 and §6.2 applied. */
  callTool(
    call: ToolCall,
    fn: (args: Record<string, unknown>) => unknown,
    extra?: ExtraFields,
  ): Promise<ToolOutcome> {
    return callTool(this, call, fn, extra);
  }

  /** pre_model_call → model → post_model_call, with §6, §6.1 and §6.2 applied. */
  callModel(request: ModelRequest, fn: Parameters<typeof callModel>[2]): Promise<ModelOutcome> {
    return callModel(this, request, fn);
  }

  /** Like callModel for a streamed response, assembled before post_model_call (§12.1). */
  callModelStream(
    request: ModelRequest,
    fn: (messages: Message[]) => AsyncIterable<StreamChunk>,
  ): Promise<ModelOutcome> {
    return callModelStream(this, request, fn);
  }
}
