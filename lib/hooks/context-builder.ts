import type { AgentContext } from './types.ts';
import {
  type InputRole,
  type InterceptionPoint,
  SPEC_VERSION,
  type ShutdownReason,
} from './vocabulary.ts';

export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  [k: string]: unknown;
}

export interface Message {
  role: string;
  content: unknown;
  [k: string]: unknown;
}

export interface ModelResponse {
  content: unknown;
  tool_calls: ToolCall[];
  finish_reason: string;
  [k: string]: unknown;
}

/** §4.2 conditional fields per point; anything else given alongside passes through (§4.5). */
export interface PointFields {
  agent_startup: { agent_init: { tools_registered: string[]; [k: string]: unknown } };
  input: { input: { content: unknown; role: InputRole; [k: string]: unknown } };
  pre_model_call: { model: { id: string; [k: string]: unknown }; messages: Message[] };
  post_model_call: { model: { id: string; [k: string]: unknown }; response: ModelResponse };
  pre_tool_call: { tool_call: ToolCall };
  post_tool_call: {
    tool_call: ToolCall;
    tool_result: { value: unknown; is_error: boolean; [k: string]: unknown };
  };
  output: { output: { content: unknown; [k: string]: unknown } };
  agent_shutdown: { summary: { reason: ShutdownReason; [k: string]: unknown } };
}

/** §4.1 required core, plus any optional fields (§4.5) and extensions (§4.6). */
export interface ContextCore {
  spec?: string;
  timestamp: string;
  sequence: number;
  agent: { id: string; framework: string; [k: string]: unknown };
  session: { id: string; [k: string]: unknown };
  extensions?: Record<string, unknown>;
  [k: string]: unknown;
}

/**
 * Build the context for one point with `target` a live alias of the value the
 * action consumes (§4.3): `ctx.target === ctx.tool_call.args`, and so on.
 * Values are referenced, not copied; the engine never mutates them.
 */
export function buildContext<P extends InterceptionPoint>(
  point: P,
  core: ContextCore,
  fields: PointFields[P] & Record<string, unknown>,
): AgentContext {
  const ctx = {
    ...core,
    ...fields,
    spec: core.spec ?? SPEC_VERSION,
    interception_point: point,
  } as unknown as AgentContext;
  ctx.target = targetOf(ctx);
  return ctx;
}

function targetOf(ctx: AgentContext): unknown {
  const f = ctx as Record<string, unknown>;
  switch (ctx.interception_point) {
    case 'agent_startup':
      return f.agent_init;
    case 'input':
      return f.input;
    case 'pre_model_call':
      return f.messages;
    case 'post_model_call':
      return f.response;
    case 'pre_tool_call':
      return (f.tool_call as ToolCall | undefined)?.args;
    case 'post_tool_call':
      return (f.tool_result as { value?: unknown } | undefined)?.value;
    case 'output':
      return f.output;
    case 'agent_shutdown':
      return f.summary;
  }
}
