import type { InterceptionPoint } from '@checkpoint/agent-hooks';

/** A valid context at each point, built from the §4.1/§4.2 examples. */
export function contextAt(point: InterceptionPoint): Record<string, unknown> {
  const core = {
    spec: 'agent-hooks/0.1',
    interception_point: point,
    timestamp: '2026-06-19T14:03:11.123Z',
    sequence: 3,
    agent: { id: 'support-bot', framework: 'openai-agents' },
    session: { id: 'sess-42' },
  };
  const toolCall = { id: 'call_1', name: 'search', args: { q: 'refund policy' } };
  switch (point) {
    case 'agent_startup': {
      const agentInit = { tools_registered: ['search'] };
      return { ...core, sequence: 0, agent_init: agentInit, target: agentInit };
    }
    case 'input': {
      const input = { content: 'hello', role: 'user' };
      return { ...core, input, target: input };
    }
    case 'pre_model_call': {
      const messages = [{ role: 'user', content: 'hello' }];
      return { ...core, model: { id: 'm-1' }, messages, target: messages };
    }
    case 'post_model_call': {
      const response = { content: null, tool_calls: [toolCall], finish_reason: 'tool_calls' };
      return { ...core, model: { id: 'm-1' }, response, target: response };
    }
    case 'pre_tool_call':
      return { ...core, tool_call: toolCall, target: toolCall.args };
    case 'post_tool_call': {
      const toolResult = { value: ['doc-1'], is_error: false };
      return { ...core, tool_call: toolCall, tool_result: toolResult, target: toolResult.value };
    }
    case 'output': {
      const output = { content: 'done' };
      return { ...core, output, target: output };
    }
    case 'agent_shutdown': {
      const summary = { reason: 'completed' };
      return { ...core, summary, target: summary };
    }
  }
}

/** The §10.3 record example with the placeholders filled in. */
export function record(): Record<string, unknown> {
  return {
    interception_point: 'pre_tool_call',
    mode: 'enforce',
    verdict: { decision: 'deny', reason: 'pii', approval: {} },
    input_identity: `sha256:${'a'.repeat(64)}`,
    enforced_identity: `sha256:${'a'.repeat(64)}`,
    identity_provider: 'jcs-sha256',
    session_id: 'sess-42',
    sequence: 4,
    timestamp: '2026-06-19T14:03:11.123Z',
    trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
    decided_by: 0,
    composition: { profile: 'sequential/first_deny', on_approval: 'stop' },
    verdicts: [{ index: 0, decision: 'deny', reason: 'pii', name: 'pii-guard' }],
    fold_truncated: false,
    resolved_by: 'rejection',
    interceptors_registered: 1,
  };
}
