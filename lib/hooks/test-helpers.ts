/** Fixtures shared by the engine's unit tests; not part of the public API (index.ts). */
import {
  type AgentContext,
  buildContext,
  createHost,
  type HostOptions,
  type InterceptionPoint,
  type Interceptor,
  type InterceptorRegistration,
  type Verdict,
} from '@checkpoint/agent-hooks';

export const AGENT = { id: 'agent-1', framework: 'test' };

const CORE = {
  timestamp: '2026-06-19T14:03:11.123Z',
  sequence: 7,
  agent: AGENT,
  session: { id: 'session-1' },
};

/** A valid context for every point, with a target an interceptor can transform. */
export function ctxFor(
  point: InterceptionPoint,
  extra: Record<string, unknown> = {},
): AgentContext {
  const core = { ...CORE, ...extra };
  switch (point) {
    case 'agent_startup':
      return buildContext(point, core, { agent_init: { tools_registered: ['search'] } });
    case 'input':
      return buildContext(point, core, { input: { content: 'hello', role: 'user' } });
    case 'pre_model_call':
      return buildContext(point, core, {
        model: { id: 'm-1' },
        messages: [{ role: 'user', content: 'hello' }],
      });
    case 'post_model_call':
      return buildContext(point, core, {
        model: { id: 'm-1' },
        response: { content: 'hi', tool_calls: [], finish_reason: 'stop' },
      });
    case 'pre_tool_call':
      return buildContext(point, core, {
        tool_call: { id: 'call-1', name: 'search', args: { q: 'secret', n: [1, 2] } },
      });
    case 'post_tool_call':
      return buildContext(point, core, {
        tool_call: { id: 'call-1', name: 'search', args: { q: 'secret' } },
        tool_result: { value: { hits: ['a', 'b'] }, is_error: false },
      });
    case 'output':
      return buildContext(point, core, { output: { content: 'bye' } });
    case 'agent_shutdown':
      return buildContext(point, core, { summary: { reason: 'completed' } });
  }
}

export function hostWith(
  interceptors: ReadonlyArray<Interceptor | InterceptorRegistration>,
  options: Partial<HostOptions> = {},
) {
  return createHost({ agent: AGENT, interceptors, ...options });
}

/** An interceptor that always returns `verdict`. */
export const returns =
  (verdict: unknown): Interceptor =>
  () =>
    structuredClone(verdict);

export const allow = returns({ decision: 'allow' });
export const deny = (reason = 'policy_deny') => returns({ decision: 'deny', reason });
export const escalate = (reason = 'needs_review') =>
  returns({ decision: 'deny', reason, approval: {} });
export const transform = (path: string, value: unknown) =>
  returns({ decision: 'transform', transform: { path, value } });

/** An interceptor that counts its calls. */
export function counted(verdict: Verdict = { decision: 'allow' }) {
  const calls: AgentContext[] = [];
  const intercept: Interceptor = (ctx) => {
    calls.push(JSON.parse(JSON.stringify(ctx)));
    return structuredClone(verdict);
  };
  return { intercept, calls };
}

/** A resolver answering with `outcome`/`verdict`, echoing the identity, and keeping requests. */
export function resolverOf(answer: { outcome: string; verdict?: unknown }) {
  const requests: unknown[] = [];
  const resolver = (req: { context_identity: string | null }) => {
    requests.push(JSON.parse(JSON.stringify(req)));
    return { ...structuredClone(answer), context_identity: req.context_identity } as never;
  };
  return { resolver, requests };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
