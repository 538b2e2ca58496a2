import { describe, expect, it } from 'vitest';
import {
  type AgentContext,
  HOST_ERRORS,
  InterceptionBlocked,
  type InterceptionRecord,
} from '@checkpoint/agent-hooks';
import { allow, counted, ctxFor, deny, hostWith, sleep } from './test-helpers.ts';

/** An interceptor that denies at one point (optionally matching a predicate) and allows elsewhere. */
const denyAt =
  (point: string, reason = 'blocked_here', when: (c: AgentContext) => boolean = () => true) =>
  (ctx: AgentContext) =>
    ctx.interception_point === point && when(ctx)
      ? { decision: 'deny', reason }
      : { decision: 'allow' };

async function started(interceptors = [allow] as never[], options = {}) {
  const records: InterceptionRecord[] = [];
  const host = hostWith(interceptors, { sinks: [(r) => void records.push(r)], ...options });
  const session = host.session({ id: 's-1' });
  await session.start({ tools_registered: ['search'] });
  await session.input('hi');
  return { host, session, records };
}

describe('§3.1 ordering and sequence', () => {
  it('sequence starts at 0 on agent_startup and strictly increases', async () => {
    const { session } = await started();
    const out = await session.output('done');
    const end = await session.shutdown();
    expect(out.context.sequence).toBe(2);
    expect(end.context.sequence).toBe(3);
    expect(end.record.sequence).toBe(3);
  });

  it('concurrent emissions get unique, totally ordered sequence numbers (§12.2)', async () => {
    const slowRandom = async () => {
      await sleep(Math.random() * 20);
      return { decision: 'allow' };
    };
    const { session } = await started([slowRandom] as never[]);
    const calls = Array.from({ length: 20 }, (_, i) =>
      session.callTool({ id: `c${i}`, name: 'search', args: { i } }, async (args) => {
        await sleep(Math.random() * 10);
        return args;
      }),
    );
    const outcomes = await Promise.all(calls);
    const seqs = outcomes.flatMap((o) =>
      o.status === 'completed' ? [o.pre.record.sequence, o.post.record.sequence] : [],
    );
    expect(seqs).toHaveLength(40);
    expect(new Set(seqs).size).toBe(40);
    for (const o of outcomes)
      if (o.status === 'completed')
        expect(o.post.record.sequence).toBeGreaterThan(o.pre.record.sequence);
    expect(Math.min(...seqs)).toBe(2);
    expect(Math.max(...seqs)).toBe(41);
  });

  it('agent_startup must come first: anything before it fails closed', async () => {
    const session = hostWith([allow]).session();
    const result = await session.input('too early');
    expect(result.proceed).toBe(false);
    expect(result.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    expect(result.record.input_identity).toBeNull();
  });

  it('agent_startup only once; nothing after agent_shutdown', async () => {
    const { session } = await started();
    expect((await session.start({ tools_registered: [] })).verdict.reason).toBe(
      HOST_ERRORS.contextInvalid,
    );
    await session.shutdown();
    expect(session.closed).toBe(true);
    expect((await session.input('late')).verdict.reason).toBe(HOST_ERRORS.contextInvalid);
  });

  it('pre_model_call, pre_tool_call and output need an input that began the turn', async () => {
    const host = hostWith([denyAt('input')]);
    const session = host.session();
    await session.start({ tools_registered: [] });
    expect((await session.input('x')).proceed).toBe(false);
    const out = await session.output('answer');
    expect(out.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
  });

  it('a post without its permitted pre fails closed (§3.1 pairing)', async () => {
    const { session } = await started();
    const orphan = await session.emit('post_tool_call', {
      tool_call: { id: 'never', name: 'x', args: {} },
      tool_result: { value: 1, is_error: false },
    });
    expect(orphan.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    const model = await session.emit('post_model_call', {
      model: { id: 'm' },
      response: { content: 'x', tool_calls: [], finish_reason: 'stop' },
    });
    expect(model.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
  });

  it('model calls pair by request_id when present', async () => {
    const { session } = await started();
    await session.emit('pre_model_call', { model: { id: 'm' }, messages: [], request_id: 'r1' });
    await session.emit('pre_model_call', { model: { id: 'm' }, messages: [], request_id: 'r2' });
    const response = { content: 'x', tool_calls: [], finish_reason: 'stop' };
    expect(
      (await session.emit('post_model_call', { model: { id: 'm' }, response, request_id: 'r2' }))
        .proceed,
    ).toBe(true);
    expect(
      (await session.emit('post_model_call', { model: { id: 'm' }, response, request_id: 'r2' }))
        .proceed,
    ).toBe(false);
    expect(
      (await session.emit('post_model_call', { model: { id: 'm' }, response, request_id: 'r1' }))
        .proceed,
    ).toBe(true);
  });

  it('two in-flight tool calls may not share a tool_call.id', async () => {
    const { session } = await started();
    const call = { id: 'dup', name: 'search', args: {} };
    expect((await session.emit('pre_tool_call', { tool_call: call })).proceed).toBe(true);
    expect((await session.emit('pre_tool_call', { tool_call: call })).verdict.reason).toBe(
      HOST_ERRORS.contextInvalid,
    );
  });

  it('emitContext takes a prebuilt context but refuses a sequence that does not increase', async () => {
    const session = hostWith([allow]).session({ id: 'session-1' });
    const startup = { ...ctxFor('agent_startup'), sequence: 0 };
    expect((await session.emitContext(startup)).proceed).toBe(true);
    const again = { ...ctxFor('input'), sequence: 0 };
    expect((await session.emitContext(again)).verdict.reason).toBe(HOST_ERRORS.contextInvalid);
  });
});

describe('§6.1a session boundaries', () => {
  it('a deny at agent_startup blocks the session; shutdown still closes it with reason error', async () => {
    const records: InterceptionRecord[] = [];
    const seen = counted();
    const host = hostWith([denyAt('agent_startup'), seen.intercept], {
      sinks: [(r) => void records.push(r)],
    });
    const session = host.session();
    const start = await session.start({ tools_registered: [] });
    expect(start.proceed).toBe(false);
    expect(session.startupBlocked).toBe(true);
    const input = await session.input('x');
    expect(input.proceed).toBe(false);
    expect(input.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    const end = await session.shutdown('completed');
    expect((end.context.summary as { reason: string }).reason).toBe('error');
    expect(end.proceed).toBe(true);
    await sleep(0);
    expect(records.map((r) => r.interception_point)).toEqual([
      'agent_startup',
      'input',
      'agent_shutdown',
    ]);
    // No interceptor saw the input.
    expect(seen.calls.map((c) => c.interception_point)).toEqual(['agent_shutdown']);
  });

  it('a block at agent_shutdown is recorded and imposes nothing further', async () => {
    const { session } = await started([denyAt('agent_shutdown')] as never[]);
    const end = await session.shutdown();
    expect(end.record.verdict.decision).toBe('deny');
    expect(session.closed).toBe(true);
  });
});

describe('§6 the bracketed actions', () => {
  it('callTool runs the tool with the transformed args and returns the transformed result', async () => {
    const rewrite = (ctx: AgentContext) =>
      ctx.interception_point === 'pre_tool_call'
        ? { decision: 'transform', transform: { path: '$target.q', value: 'safe' } }
        : ctx.interception_point === 'post_tool_call'
          ? { decision: 'transform', transform: { path: '$target.secret', value: '***' } }
          : { decision: 'allow' };
    const { session } = await started([rewrite] as never[]);
    const passed: unknown[] = [];
    const outcome = await session.callTool(
      { id: 'c1', name: 'search', args: { q: 'raw' } },
      (args) => {
        passed.push(args);
        return { secret: 'pw', ok: true };
      },
    );
    expect(passed).toEqual([{ q: 'safe' }]);
    expect(outcome).toMatchObject({
      status: 'completed',
      value: { secret: '***', ok: true },
      args: { q: 'safe' },
    });
    // §4.2: post_tool_call carries the args actually passed.
    if (outcome.status === 'completed') {
      expect(outcome.post.context.tool_call).toMatchObject({ args: { q: 'safe' } });
      expect(outcome.post.context.tool_result).toMatchObject({ is_error: false });
    }
  });

  it('§6.2 a blocked pre_tool_call never runs the tool and emits no post_tool_call', async () => {
    const { session, records } = await started([denyAt('pre_tool_call', 'no_tools')] as never[]);
    let ran = false;
    const outcome = await session.callTool({ id: 'c1', name: 'rm', args: {} }, () => {
      ran = true;
    });
    expect(ran).toBe(false);
    expect(outcome).toMatchObject({ status: 'blocked', stage: 'pre', reason: 'no_tools' });
    await sleep(0);
    expect(records.map((r) => r.interception_point)).not.toContain('post_tool_call');
    // The loop goes on: the session still accepts a model call and output.
    expect((await session.output('sorry')).proceed).toBe(true);
  });

  it('§6.1 a denied post_tool_call discards the result; the tool is not re-run', async () => {
    const { session } = await started([denyAt('post_tool_call', 'tainted')] as never[]);
    let runs = 0;
    const outcome = await session.callTool({ id: 'c1', name: 'fetch', args: {} }, () => {
      runs++;
      return 'RESULT';
    });
    expect(runs).toBe(1);
    expect(outcome).toMatchObject({ status: 'blocked', stage: 'post', reason: 'tainted' });
    expect(JSON.stringify(outcome.status === 'blocked' ? outcome.reason : '')).not.toContain(
      'RESULT',
    );
  });

  it('a tool that throws produces is_error: true; toolError() does so without throwing', async () => {
    const { session } = await started();
    const { toolError } = await import('@checkpoint/agent-hooks');
    const thrown = await session.callTool({ id: 'c1', name: 't', args: {} }, () => {
      throw new Error('disk full');
    });
    expect(thrown).toMatchObject({ status: 'completed', isError: true });
    const flagged = await session.callTool({ id: 'c2', name: 't', args: {} }, () =>
      toolError({ code: 7 }),
    );
    expect(flagged).toMatchObject({ status: 'completed', isError: true, value: { code: 7 } });
  });

  it('callModel sends the transformed messages and returns the transformed response', async () => {
    const rewrite = (ctx: AgentContext) =>
      ctx.interception_point === 'pre_model_call'
        ? { decision: 'transform', transform: { path: '$target[0].content', value: 'clean' } }
        : ctx.interception_point === 'post_model_call'
          ? { decision: 'transform', transform: { path: '$target.content', value: 'filtered' } }
          : { decision: 'allow' };
    const { session } = await started([rewrite] as never[]);
    const sent: unknown[] = [];
    const outcome = await session.callModel(
      { model: { id: 'm-1' }, messages: [{ role: 'user', content: 'dirty' }], request_id: 'r1' },
      (messages) => {
        sent.push(messages);
        return { content: 'raw answer' };
      },
    );
    expect(sent).toEqual([[{ role: 'user', content: 'clean' }]]);
    expect(outcome).toMatchObject({
      status: 'completed',
      response: { content: 'filtered', tool_calls: [], finish_reason: 'stop' },
    });
    if (outcome.status === 'completed') expect(outcome.post.context.request_id).toBe('r1');
  });

  it('§6.2 a blocked pre_model_call never calls the model', async () => {
    const { session } = await started([denyAt('pre_model_call')] as never[]);
    let called = false;
    const outcome = await session.callModel({ model: { id: 'm' }, messages: [] }, () => {
      called = true;
      return { content: 'x' };
    });
    expect(called).toBe(false);
    expect(outcome).toMatchObject({ status: 'blocked', stage: 'pre' });
  });

  it('InterceptionBlocked is opt-in and carries the result', async () => {
    const host = hostWith([denyAt('output', 'nope')], { throwOnBlock: true });
    const session = host.session();
    await session.start({ tools_registered: [] });
    await session.input('x');
    const error = await session.output('y').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterceptionBlocked);
    expect((error as InterceptionBlocked).result.verdict.reason).toBe('nope');
  });
});

describe('§5.4 result labels', () => {
  const labeller = (ctx: AgentContext) =>
    ctx.interception_point === 'post_tool_call'
      ? { decision: 'allow', result_labels: ['pii', 'external'] }
      : { decision: 'allow' };

  it('labels of a permitted action resurface as extensions.<ns>.source_labels on later hooks', async () => {
    const seen = counted();
    const { session } = await started([
      { namespace: 'acme', intercept: labeller },
      seen.intercept,
    ] as never[]);
    const outcome = await session.callTool({ id: 'c', name: 't', args: {} }, () => 'data');
    expect(outcome.status === 'completed' && outcome.post.resultLabels).toEqual([
      'pii',
      'external',
    ]);
    const out = await session.output('answer', { extensions: { acme: { other: 1 } } });
    expect(out.context.extensions).toEqual({
      acme: { other: 1, source_labels: ['pii', 'external'] },
    });
    expect(session.sourceLabels()).toEqual({ acme: ['pii', 'external'] });
  });

  it('labels of a denied action are never persisted', async () => {
    const both = (ctx: AgentContext) =>
      ctx.interception_point === 'post_tool_call'
        ? { decision: 'allow', result_labels: ['x'] }
        : { decision: 'allow' };
    const { session } = await started([both, denyAt('post_tool_call')] as never[]);
    const outcome = await session.callTool({ id: 'c', name: 't', args: {} }, () => 'data');
    expect(outcome.status).toBe('blocked');
    expect(session.sourceLabels()).toEqual({});
    const out = await session.output('answer');
    expect(out.context).not.toHaveProperty('extensions');
  });
});

describe('§12 streaming and §3.2 capabilities', () => {
  async function* stream(chunks: Array<Record<string, unknown>>, failAt?: number) {
    for (let i = 0; i < chunks.length; i++) {
      if (i === failAt) throw new Error('connection reset');
      yield chunks[i];
    }
  }

  it('assembles the whole response before post_model_call', async () => {
    const seen = counted();
    const { session } = await started([seen.intercept] as never[]);
    const outcome = await session.callModelStream({ model: { id: 'm' }, messages: [] }, () =>
      stream([{ content: 'Hel' }, { content: 'lo' }, { finish_reason: 'stop' }]),
    );
    expect(outcome).toMatchObject({
      status: 'completed',
      response: { content: 'Hello', finish_reason: 'stop' },
    });
    expect(seen.calls.at(-1)?.response).toEqual({
      content: 'Hello',
      tool_calls: [],
      finish_reason: 'stop',
    });
  });

  it('an incomplete stream: post_model_call with stream_incomplete and a streaming_unsupported deny, never incorporated', async () => {
    const { session } = await started();
    const outcome = await session.callModelStream({ model: { id: 'm' }, messages: [] }, () =>
      stream([{ content: 'partial' }, { content: 'never' }], 1),
    );
    expect(outcome).toMatchObject({
      status: 'blocked',
      stage: 'post',
      reason: HOST_ERRORS.streamingUnsupported,
    });
    if (outcome.status === 'blocked') {
      expect(outcome.post?.context.response).toMatchObject({ finish_reason: 'stream_incomplete' });
      expect(outcome.post?.record.verdict).toEqual({
        decision: 'deny',
        reason: HOST_ERRORS.streamingUnsupported,
        message: expect.any(String),
      });
    }
  });

  it('a host that declared no tool calls answers those points with adapter_unsupported', async () => {
    const { session } = await started([allow] as never[], { capabilities: { tool_calls: false } });
    const outcome = await session.callTool({ id: 'c', name: 't', args: {} }, () => 1);
    expect(outcome).toMatchObject({ status: 'blocked', reason: HOST_ERRORS.adapterUnsupported });
  });
});

describe('§8 mode per session', () => {
  it('a session can run evaluate_only while the host enforces', async () => {
    const host = hostWith([deny()]);
    const session = host.session({ mode: 'evaluate_only' });
    expect((await session.start({ tools_registered: [] })).proceed).toBe(true);
    expect((await session.input('x')).proceed).toBe(true);
    const enforced = host.session();
    expect((await enforced.start({ tools_registered: [] })).proceed).toBe(false);
  });
});

describe('emit() never throws', () => {
  it('a context whose fields fight back is a context_invalid deny', async () => {
    const { session } = await started();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('gotcha');
        },
        ownKeys() {
          throw new Error('gotcha');
        },
      },
    );
    const result = await session.emit('pre_tool_call', {
      tool_call: { id: 'c', name: 't', args: hostile },
    } as never);
    expect(result.proceed).toBe(false);
    expect(result.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
    const nothing = await session.emit('output', null as never);
    expect(nothing.verdict.reason).toBe(HOST_ERRORS.contextInvalid);
  });

  it('a block at agent_shutdown does not throw even with throwOnBlock', async () => {
    const host = hostWith([denyAt('agent_shutdown')], { throwOnBlock: true });
    const session = host.session();
    await session.start({ tools_registered: [] });
    const end = await session.shutdown();
    expect(end.proceed).toBe(false);
  });
});
