import type { Message, ModelResponse, ToolCall } from './context-builder.ts';
import type { ExtraFields, Session } from './session.ts';
import { assembleStream, type StreamChunk } from './streaming.ts';
import { errorTypeName } from './timeout.ts';
import type { EmissionResult } from './types.ts';
import { HOST_ERRORS } from './vocabulary.ts';

const TOOL_ERROR = Symbol('agent-hooks.tool-error');

/** Return this from a tool function to report `is_error: true` without throwing. */
export function toolError(value: unknown): { [TOOL_ERROR]: true; value: unknown } {
  return { [TOOL_ERROR]: true, value };
}

export type Blocked = {
  status: 'blocked';
  stage: 'pre' | 'post';
  /** The combined verdict's reason, safe to surface to the model (§6.2). */
  reason: string | undefined;
  pre: EmissionResult;
  post?: EmissionResult;
};

export type ToolOutcome =
  | {
      status: 'completed';
      /** The tool result as incorporated: transformed when post_tool_call transformed it. */
      value: unknown;
      isError: boolean;
      /** The arguments actually passed to the tool (post-transform, §4.2). */
      args: Record<string, unknown>;
      pre: EmissionResult;
      post: EmissionResult;
    }
  | Blocked;

/**
 * Bracket one tool call with pre_tool_call/post_tool_call: the tool runs only
 * on a permit, with the (possibly transformed) args (§6); a blocked pre emits
 * no post (§6.2); a denied post discards the result (§6.1). A tool that throws
 * yields `is_error: true`.
 */
export async function callTool(
  session: Session,
  call: ToolCall,
  fn: (args: Record<string, unknown>) => unknown,
  extra: ExtraFields = {},
): Promise<ToolOutcome> {
  const pre = await session.emit('pre_tool_call', { ...extra, tool_call: call });
  if (!pre.proceed) return { status: 'blocked', stage: 'pre', reason: pre.verdict.reason, pre };
  const args = pre.target as Record<string, unknown>;
  const started = Date.now();
  let value: unknown;
  let isError = false;
  try {
    const out = await fn(args);
    if (out && typeof out === 'object' && TOOL_ERROR in out) {
      value = (out as unknown as { value: unknown }).value;
      isError = true;
    } else {
      value = out === undefined ? null : out;
    }
  } catch (error) {
    value = {
      error: errorTypeName(error),
      message: error instanceof Error ? error.message : String(error),
    };
    isError = true;
  }
  const post = await session.emit('post_tool_call', {
    ...extra,
    tool_call: { ...call, args },
    tool_result: { value, is_error: isError, duration_ms: Date.now() - started },
  });
  if (!post.proceed)
    return { status: 'blocked', stage: 'post', reason: post.verdict.reason, pre, post };
  return { status: 'completed', value: post.target, isError, args, pre, post };
}

export interface ModelRequest {
  model: { id: string; [k: string]: unknown };
  messages: Message[];
  request_id?: string;
  [k: string]: unknown;
}

export type ModelOutcome =
  | {
      status: 'completed';
      /** The response as incorporated (transformed when post_model_call transformed it). */
      response: ModelResponse;
      /** The messages the model actually received (§4.3). */
      messages: Message[];
      pre: EmissionResult;
      post: EmissionResult;
    }
  | Blocked;

type ModelFn = (messages: Message[]) => Promise<Partial<ModelResponse>> | Partial<ModelResponse>;

/** Bracket one model call with pre_model_call/post_model_call (§3, §6, §6.1, §6.2). */
export async function callModel(
  session: Session,
  request: ModelRequest,
  fn: ModelFn,
): Promise<ModelOutcome> {
  const { model, messages, ...extra } = request;
  const pre = await session.emit('pre_model_call', { ...extra, model, messages });
  if (!pre.proceed) return { status: 'blocked', stage: 'pre', reason: pre.verdict.reason, pre };
  const sent = pre.target as Message[];
  let response: ModelResponse;
  try {
    response = normalizeResponse(await fn(sent));
  } catch (error) {
    // §3.1: the pre still gets its post; the failure is the host's to handle.
    await session.emit('post_model_call', {
      ...pick(extra),
      model,
      response: { content: null, tool_calls: [], finish_reason: 'error' },
    });
    throw error;
  }
  const post = await session.emit('post_model_call', { ...pick(extra), model, response });
  if (!post.proceed)
    return { status: 'blocked', stage: 'post', reason: post.verdict.reason, pre, post };
  return { status: 'completed', response: post.target as ModelResponse, messages: sent, pre, post };
}

/**
 * A streamed model call (§12.1): the response is assembled before
 * post_model_call; an incomplete stream becomes a post_model_call with
 * `finish_reason: "stream_incomplete"` and the host's own deny
 * `host_error:streaming_unsupported`, and is never incorporated.
 */
export async function callModelStream(
  session: Session,
  request: ModelRequest,
  fn: (messages: Message[]) => AsyncIterable<StreamChunk>,
): Promise<ModelOutcome> {
  const { model, messages, ...extra } = request;
  const pre = await session.emit('pre_model_call', { ...extra, model, messages });
  if (!pre.proceed) return { status: 'blocked', stage: 'pre', reason: pre.verdict.reason, pre };
  const sent = pre.target as Message[];
  const assembled = await assembleStream(fn(sent));
  if (!assembled.complete) {
    const post = await session.emitSelfVerdict(
      'post_model_call',
      { ...pick(extra), model, response: assembled.response },
      {
        reason: HOST_ERRORS.streamingUnsupported,
        message: 'the model stream ended before it completed (§12.1)',
      },
    );
    return { status: 'blocked', stage: 'post', reason: post.verdict.reason, pre, post };
  }
  const post = await session.emit('post_model_call', {
    ...pick(extra),
    model,
    response: assembled.response,
  });
  if (!post.proceed)
    return { status: 'blocked', stage: 'post', reason: post.verdict.reason, pre, post };
  return { status: 'completed', response: post.target as ModelResponse, messages: sent, pre, post };
}

/** Fields that belong to post_model_call too: the pairing key (§3.1) and extensions. */
function pick(extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['request_id', 'extensions', 'trace']) if (key in extra) out[key] = extra[key];
  return out;
}

function normalizeResponse(r: Partial<ModelResponse>): ModelResponse {
  return {
    ...r,
    content: r.content === undefined ? null : r.content,
    tool_calls: r.tool_calls ?? [],
    finish_reason: r.finish_reason ?? 'stop',
  };
}
