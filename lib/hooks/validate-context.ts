import { isPlainObject, jsonEqual } from './plain.ts';
import { TARGET_LOCATIONS } from './transform.ts';
import type { AgentContext } from './types.ts';
import {
  HOST_ERRORS,
  INPUT_ROLES,
  type InterceptionPoint,
  isInterceptionPoint,
  PATTERNS,
  SHUTDOWN_REASONS,
} from './vocabulary.ts';

export type EnvelopeCheck =
  | { ok: true; context: AgentContext }
  | { ok: false; reason: typeof HOST_ERRORS.contextInvalid; message: string };

type Obj = Record<string, unknown>;
type Check = (ctx: Obj) => string | null;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const isStr = (v: unknown) => typeof v === 'string';
// "string | object": arrays of content parts are accepted as JSON structures too.
const isContent = (v: unknown) => typeof v === 'string' || (typeof v === 'object' && v !== null);
const obj = (v: unknown): Obj | null => (isPlainObject(v) ? v : null);

function toolCall(v: unknown, path: string): string | null {
  const tc = obj(v);
  if (!tc) return `${path} is not an object`;
  if (!isStr(tc.id)) return `${path}.id is not a string`;
  if (!isStr(tc.name)) return `${path}.name is not a string`;
  if (!obj(tc.args)) return `${path}.args is not an object`;
  return null;
}

function model(ctx: Obj): string | null {
  const m = obj(ctx.model);
  if (!m || !isStr(m.id)) return 'model.id is not a string';
  return null;
}

/** §4.2 conditional fields, presence and JSON type, per point. */
const CONDITIONAL: Record<InterceptionPoint, Check> = {
  agent_startup: (ctx) => {
    const init = obj(ctx.agent_init);
    if (!init) return 'agent_init is not an object';
    if (!Array.isArray(init.tools_registered) || !init.tools_registered.every(isStr)) {
      return 'agent_init.tools_registered is not an array of strings';
    }
    return null;
  },
  input: (ctx) => {
    const input = obj(ctx.input);
    if (!input) return 'input is not an object';
    if (!isContent(input.content)) return 'input.content is not a string or object';
    if (!(INPUT_ROLES as readonly unknown[]).includes(input.role))
      return 'input.role is not user|system|external';
    return null;
  },
  pre_model_call: (ctx) => {
    const bad = model(ctx);
    if (bad) return bad;
    if (!Array.isArray(ctx.messages)) return 'messages is not an array';
    for (let i = 0; i < ctx.messages.length; i++) {
      const m = obj(ctx.messages[i]);
      if (!m || !isStr(m.role)) return `messages[${i}].role is not a string`;
      if (!isContent(m.content)) return `messages[${i}].content is not a string or object`;
    }
    return null;
  },
  post_model_call: (ctx) => {
    const bad = model(ctx);
    if (bad) return bad;
    const r = obj(ctx.response);
    if (!r) return 'response is not an object';
    if (r.content !== null && !isContent(r.content))
      return 'response.content is not a string, object or null';
    if (!Array.isArray(r.tool_calls)) return 'response.tool_calls is not an array';
    for (let i = 0; i < r.tool_calls.length; i++) {
      const tc = toolCall(r.tool_calls[i], `response.tool_calls[${i}]`);
      if (tc) return tc;
    }
    if (!isStr(r.finish_reason)) return 'response.finish_reason is not a string';
    return null;
  },
  pre_tool_call: (ctx) => toolCall(ctx.tool_call, 'tool_call'),
  post_tool_call: (ctx) => {
    const tc = toolCall(ctx.tool_call, 'tool_call');
    if (tc) return tc;
    const r = obj(ctx.tool_result);
    if (!r || !Object.hasOwn(r, 'value') || r.value === undefined)
      return 'tool_result.value is absent';
    if (typeof r.is_error !== 'boolean') return 'tool_result.is_error is not a boolean';
    return null;
  },
  output: (ctx) => {
    const out = obj(ctx.output);
    if (!out || !isContent(out.content)) return 'output.content is not a string or object';
    return null;
  },
  agent_shutdown: (ctx) => {
    const s = obj(ctx.summary);
    if (!s || !(SHUTDOWN_REASONS as readonly unknown[]).includes(s.reason)) {
      return 'summary.reason is not completed|error|cancelled';
    }
    return null;
  },
};

function core(ctx: Obj): string | null {
  if (!isStr(ctx.spec) || !PATTERNS.spec.test(ctx.spec as string))
    return 'spec does not match ^agent-hooks/\\d+\\.\\d+$';
  if (!isInterceptionPoint(ctx.interception_point))
    return 'interception_point is not one of the eight §3 points';
  if (!isStr(ctx.timestamp) || !RFC3339.test(ctx.timestamp as string))
    return 'timestamp is not an RFC 3339 instant';
  const seq = ctx.sequence;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0)
    return 'sequence is not an integer >= 0';
  const agent = obj(ctx.agent);
  if (!agent || !isStr(agent.id)) return 'agent.id is not a string';
  if (!isStr(agent.framework) || !PATTERNS.framework.test(agent.framework as string)) {
    return 'agent.framework does not match ^[a-z0-9_-]+$';
  }
  const session = obj(ctx.session);
  if (!session || !isStr(session.id)) return 'session.id is not a string';
  if (!Object.hasOwn(ctx, 'target') || ctx.target === undefined) return 'target is absent';
  return null;
}

/** Types of the well-known optional fields (§4.5) that records or ordering read. */
function optional(ctx: Obj): string | null {
  if (ctx.request_id !== undefined && !isStr(ctx.request_id)) return 'request_id is not a string';
  if (ctx.trace !== undefined) {
    const t = obj(ctx.trace);
    if (!t) return 'trace is not an object';
    if (t.trace_id !== undefined && !isStr(t.trace_id)) return 'trace.trace_id is not a string';
    if (t.span_id !== undefined && !isStr(t.span_id)) return 'trace.span_id is not a string';
  }
  const turn = obj(ctx.session)?.turn;
  if (turn !== undefined && !(Number.isSafeInteger(turn) && (turn as number) >= 0)) {
    return 'session.turn is not an integer >= 0';
  }
  if (ctx.extensions !== undefined) {
    const ext = obj(ctx.extensions);
    if (!ext) return 'extensions is not an object';
    for (const ns of Object.keys(ext)) {
      if (!PATTERNS.namespace.test(ns))
        return 'an extensions namespace does not match ^[a-z][a-z0-9_]*$';
    }
  }
  return null;
}

/**
 * The §4 envelope check a host runs before dispatch (§10.2): required core,
 * per-point conditional fields, the target alias, optional field types and
 * extension namespaces. Messages name the field, never its value (§14).
 */
export function validateContextEnvelope(value: unknown): EnvelopeCheck {
  const ctx = obj(value);
  const problem = !ctx
    ? 'context is not a JSON object'
    : (core(ctx) ?? conditional(ctx) ?? optional(ctx));
  if (problem) return { ok: false, reason: HOST_ERRORS.contextInvalid, message: `§4: ${problem}` };
  return { ok: true, context: ctx as AgentContext };
}

function conditional(ctx: Obj): string | null {
  const point = ctx.interception_point as InterceptionPoint;
  const bad = CONDITIONAL[point](ctx);
  if (bad) return bad;
  const loc = TARGET_LOCATIONS[point];
  const aliased = loc.length === 1 ? ctx[loc[0]] : (ctx[loc[0]] as Obj)[loc[1]];
  // Same object in-process (fast path); a context that crossed the wire is a copy.
  if (aliased !== ctx.target && !jsonEqual(aliased, ctx.target)) {
    return `target is not the value of ${loc.join('.')} (§4.3)`;
  }
  return null;
}
