import type { ModelResponse, ToolCall } from './context-builder.ts';

/** One chunk of a streamed model response. */
export interface StreamChunk {
  content?: string;
  tool_calls?: ToolCall[];
  finish_reason?: string;
}

export type Assembled =
  | { complete: true; response: ModelResponse }
  | { complete: false; response: ModelResponse };

/**
 * §12.1: assemble the whole response before post_model_call. A stream that
 * throws or ends without a finish_reason is incomplete: its response carries
 * `finish_reason: "stream_incomplete"` and must not be incorporated.
 */
export async function assembleStream(stream: AsyncIterable<StreamChunk>): Promise<Assembled> {
  let content = '';
  let sawContent = false;
  const toolCalls: ToolCall[] = [];
  let finish: string | undefined;
  try {
    for await (const chunk of stream) {
      if (typeof chunk.content === 'string') {
        content += chunk.content;
        sawContent = true;
      }
      if (chunk.tool_calls) toolCalls.push(...chunk.tool_calls);
      if (typeof chunk.finish_reason === 'string') finish = chunk.finish_reason;
    }
  } catch {
    finish = undefined;
  }
  const body = { content: sawContent ? content : null, tool_calls: toolCalls };
  if (finish === undefined)
    return { complete: false, response: { ...body, finish_reason: 'stream_incomplete' } };
  return { complete: true, response: { ...body, finish_reason: finish } };
}
