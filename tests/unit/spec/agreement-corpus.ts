/**
 * Documents on both sides of every line the normative schemas draw: nulls,
 * open and closed objects, formats, each interception point, records, the
 * approval seam. Each entry is only a document; whether it is valid is what
 * the agreement test asks both schema sets.
 */
import { INTERCEPTION_POINTS, type InterceptionPoint } from '@checkpoint/agent-hooks';
import { contextAt, record } from './examples';

type Doc = Record<string, unknown>;
export type Case = [name: string, doc: unknown];

const HASH = `sha256:${'c'.repeat(64)}`;

/** Replaces one member (undefined deletes it) at a dotted path, on a deep copy. */
export function edit(doc: Doc, dotted: string, value: unknown): Doc {
  const copy = structuredClone(doc);
  const keys = dotted.split('.');
  let at = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

/** Variations valid or invalid anywhere in the envelope (§4.1, §4.5, §4.6). */
function envelopeCases(point: InterceptionPoint): Case[] {
  const ctx = contextAt(point);
  return [
    [`${point} as built`, ctx],
    [`${point} unknown top-level member`, { ...ctx, vendor_field: 1 }],
    [`${point} another point's field`, { ...ctx, usage: { prompt_tokens: 1 } }],
    [`${point} agent.name null`, edit(ctx, 'agent.name', null)],
    [`${point} agent.id empty`, edit(ctx, 'agent.id', '')],
    [`${point} agent extra member`, edit(ctx, 'agent.team', 'x')],
    [`${point} session.id empty`, edit(ctx, 'session.id', '')],
    [`${point} session.started_at not a date`, edit(ctx, 'session.started_at', 'IGNORED')],
    [`${point} session.started_at date`, edit(ctx, 'session.started_at', '2026-06-19T14:00:00Z')],
    [`${point} session.turn negative`, edit(ctx, 'session.turn', -1)],
    [`${point} timestamp not a date`, edit(ctx, 'timestamp', 'yesterday')],
    [`${point} timestamp with offset`, edit(ctx, 'timestamp', '2026-06-19T16:03:11+02:00')],
    [`${point} timestamp null`, edit(ctx, 'timestamp', null)],
    [`${point} sequence negative`, edit(ctx, 'sequence', -1)],
    [`${point} sequence fractional`, edit(ctx, 'sequence', 1.5)],
    [`${point} spec malformed`, edit(ctx, 'spec', 'agent-hooks/v1')],
    [`${point} framework uppercase`, edit(ctx, 'agent.framework', 'LangChain')],
    [`${point} trace non-hex`, { ...ctx, trace: { trace_id: 'not-hex', span_id: 'zz' } }],
    [`${point} trace null member`, { ...ctx, trace: { trace_id: null } }],
    [`${point} tenant extra`, { ...ctx, tenant: { id: 't', region: 'eu' } }],
    [`${point} actor kind unknown`, { ...ctx, actor: { kind: 'robot' } }],
    [`${point} budgets string`, { ...ctx, budgets: { cost_usd: '0.2' } }],
    [`${point} extensions bad namespace`, { ...ctx, extensions: { 'Bad-NS': 1 } }],
    [`${point} extensions ok`, { ...ctx, extensions: { acme: null, ctk: {} } }],
    [`${point} request_id number`, { ...ctx, request_id: 7 }],
    [`${point} tools with boolean schema`, { ...ctx, tools: [{ name: 't', schema: true }] }],
    [`${point} tools ok`, { ...ctx, tools: [{ name: 't', schema: { type: 'object' } }] }],
    [`${point} messages content number`, { ...ctx, messages: [{ role: 'u', content: 4 }] }],
    [`${point} target absent`, edit(ctx, 'target', undefined)],
    [`${point} unknown point`, { ...ctx, interception_point: 'on_error' }],
    [`${point} not an object`, [ctx]],
  ];
}

/** Variations of each point's conditional fields (§4.2) and their optional members. */
function conditionalCases(): Case[] {
  const c = contextAt;
  return [
    [
      'startup tools_registered number',
      edit(c('agent_startup'), 'agent_init.tools_registered', [1]),
    ],
    ['startup agent_init extra', edit(c('agent_startup'), 'agent_init.extra', 1)],
    ['startup agent_init absent', edit(c('agent_startup'), 'agent_init', undefined)],
    ['input content number', edit(c('input'), 'input.content', 42)],
    ['input content null', edit(c('input'), 'input.content', null)],
    ['input role admin', edit(c('input'), 'input.role', 'admin')],
    ['input extra member', edit(c('input'), 'input.lang', 'en')],
    ['pre_model model extra', edit(c('pre_model_call'), 'model.extra', 1)],
    ['pre_model model params array', edit(c('pre_model_call'), 'model.params', [])],
    ['pre_model messages absent', edit(c('pre_model_call'), 'messages', undefined)],
    [
      'pre_model message extra',
      edit(c('pre_model_call'), 'messages', [{ role: 'u', content: 'x', name: 'n' }]),
    ],
    ['post_model response extra', edit(c('post_model_call'), 'response.extra', 1)],
    ['post_model tool_calls absent', edit(c('post_model_call'), 'response.tool_calls', undefined)],
    [
      'post_model tool call without id',
      edit(c('post_model_call'), 'response.tool_calls', [{ name: 'n', args: {} }]),
    ],
    ['post_model usage negative', { ...c('post_model_call'), usage: { prompt_tokens: -1 } }],
    ['post_model usage null', { ...c('post_model_call'), usage: { prompt_tokens: null } }],
    ['pre_tool tool_call extra', edit(c('pre_tool_call'), 'tool_call.extra', 1)],
    ['pre_tool content_hash ok', edit(c('pre_tool_call'), 'tool_call.content_hash', HASH)],
    ['pre_tool content_hash bad', edit(c('pre_tool_call'), 'tool_call.content_hash', 'md5:x')],
    ['pre_tool id empty', edit(c('pre_tool_call'), 'tool_call.id', '')],
    ['pre_tool args array', edit(c('pre_tool_call'), 'tool_call.args', [])],
    ['post_tool result extra', edit(c('post_tool_call'), 'tool_result.extra', 1)],
    ['post_tool duration negative', edit(c('post_tool_call'), 'tool_result.duration_ms', -1)],
    ['post_tool value null', edit(c('post_tool_call'), 'tool_result.value', null)],
    ['post_tool is_error absent', edit(c('post_tool_call'), 'tool_result.is_error', undefined)],
    ['post_tool tool_call extra', edit(c('post_tool_call'), 'tool_call.extra', 1)],
    ['output content array', edit(c('output'), 'output.content', ['a'])],
    ['output extra member', edit(c('output'), 'output.format', 'md')],
    ['shutdown reason unknown', edit(c('agent_shutdown'), 'summary.reason', 'crashed')],
    ['shutdown counts', edit(c('agent_shutdown'), 'summary.tool_calls', 3)],
    ['shutdown count negative', edit(c('agent_shutdown'), 'summary.errors', -1)],
    ['shutdown summary extra', edit(c('agent_shutdown'), 'summary.note', 'x')],
  ];
}

export function contextCases(): Case[] {
  return [...INTERCEPTION_POINTS.flatMap(envelopeCases), ...conditionalCases()];
}

export function verdictCases(): Case[] {
  const ev = (evidence: unknown) => ({ decision: 'allow', evidence });
  return [
    ['allow', { decision: 'allow' }],
    ['reason null', { decision: 'allow', reason: null }],
    ['message null', { decision: 'deny', message: null }],
    ['warnings null', { decision: 'allow', warnings: null }],
    ['result_labels null', { decision: 'allow', result_labels: null }],
    ['warning members null', { decision: 'allow', warnings: [{ reason: null, message: null }] }],
    ['warning empty', { decision: 'allow', warnings: [{}] }],
    ['warning extra member', { decision: 'allow', warnings: [{ reason: 'x', level: 1 }] }],
    ['warning host_error reason', { decision: 'allow', warnings: [{ reason: 'host_error:x' }] }],
    ['warning non-object', { decision: 'allow', warnings: ['x'] }],
    ['evidence null', ev(null)],
    ['evidence artefact null', ev({ artefact: null })],
    ['evidence extra member', ev({ artefact: 'x', note: 1 })],
    ['evidence pointers', ev({ verification_pointers: { log: 'https://e/1' } })],
    ['evidence pointer number', ev({ verification_pointers: { log: 1 } })],
    ['approval null', { decision: 'deny', approval: null }],
    ['approval on allow', { decision: 'allow', approval: {} }],
    ['approval with members', { decision: 'deny', approval: { queue: 'q' } }],
    ['transform null on allow', { decision: 'allow', transform: null }],
    ['transform', { decision: 'transform', transform: { path: '$target.q', value: 1 } }],
    ['transform without value', { decision: 'transform', transform: { path: '$target' } }],
    ['transform alias', { decision: 'transform', transform: { path: '$policy_target[0]' } }],
    ['transform foreign root', { decision: 'transform', transform: { path: '$context.x' } }],
    ['transform extra member', { decision: 'transform', transform: { path: '$target', op: 'x' } }],
    ['transform missing', { decision: 'transform' }],
    ['transform on deny', { decision: 'deny', transform: { path: '$target' } }],
    ['host_error reason', { decision: 'deny', reason: 'host_error:context_invalid' }],
    ['unknown member', { decision: 'allow', confidence: 0.9 }],
    ['decision null', { decision: null }],
    ['decision warn', { decision: 'warn' }],
    ['labels numbers', { decision: 'allow', result_labels: [1] }],
    ['not an object', 'allow'],
  ];
}

export function recordCases(): Case[] {
  const r = record();
  return [
    ['as built', r],
    ['verdict reason null', edit(r, 'verdict.reason', null)],
    ['verdict message null', edit(r, 'verdict.message', null)],
    ['verdict unknown member', edit(r, 'verdict.extra', 1)],
    ['verdict empty', { ...r, verdict: {} }],
    [
      'verdict transform value',
      { ...r, verdict: { decision: 'transform', transform: { path: '$target', value: 1 } } },
    ],
    ['verdict approval members', { ...r, verdict: { decision: 'deny', approval: { q: 1 } } }],
    ['decided_by absent', edit(r, 'decided_by', undefined)],
    ['decided_by null', edit(r, 'decided_by', null)],
    ['decided_by negative', edit(r, 'decided_by', -1)],
    ['resolved_by null', edit(r, 'resolved_by', null)],
    ['resolved_by other', edit(r, 'resolved_by', 'timeout')],
    ['verdicts reason null', { ...r, verdicts: [{ index: 0, decision: 'deny', reason: null }] }],
    ['verdicts extra member', { ...r, verdicts: [{ index: 0, decision: 'deny', note: 'x' }] }],
    ['composition without knob', { ...r, composition: { profile: 'sequential/first_deny' } }],
    [
      'composition foreign knob',
      { ...r, composition: { profile: 'sequential/run_all', on_approval: 'stop' }, verdicts: [] },
    ],
    [
      'composition unknown member',
      { ...r, composition: { profile: 'sequential/first_deny', x: 1 } },
    ],
    [
      'run_all without verdicts',
      { ...edit(r, 'verdicts', undefined), composition: { profile: 'sequential/run_all' } },
    ],
    ['unbound with identities', edit(r, 'identity_provider', null)],
    ['unbound', { ...r, identity_provider: null, input_identity: null, enforced_identity: null }],
    ['jcs-prefixed provider', edit(r, 'identity_provider', 'jcs-custom')],
    ['custom provider', edit(r, 'identity_provider', 'hmac-sha256-k1')],
    ['host failure sequence', { ...r, session_id: '', sequence: -1 }],
    ['timestamp null', edit(r, 'timestamp', null)],
    ['trace null member', edit(r, 'trace', { trace_id: null })],
    ['trace extra', edit(r, 'trace', { trace_id: 'a', parent: 'b' })],
    ['mode unknown', edit(r, 'mode', 'shadow')],
    ['unknown top-level', { ...r, context: {} }],
    ['missing composition', edit(r, 'composition', undefined)],
  ];
}

export function requestCases(): Case[] {
  const request = {
    context_identity: HASH,
    interception_point: 'pre_tool_call',
    verdict: { decision: 'deny', reason: 'needs-review', approval: {} },
    context: contextAt('pre_tool_call'),
  };
  return [
    ['liftable deny', request],
    ['plain deny', { ...request, verdict: { decision: 'deny' } }],
    [
      'host-synthesized',
      {
        ...request,
        verdict: { decision: 'deny', reason: 'host_error:transform_conflict', approval: {} },
      },
    ],
    ['allow', { ...request, verdict: { decision: 'allow' } }],
    ['identity null', { ...request, context_identity: null }],
    ['no context', edit(request, 'context', undefined)],
    ['redacted context', { ...request, context: { ...request.context, target: '[redacted]' } }],
    ['context without core', { ...request, context: { target: 1 } }],
    ['unknown member', { ...request, ticket: 1 }],
    ['unknown point', { ...request, interception_point: 'on_error' }],
  ];
}

export function resolutionCases(): Case[] {
  const id = HASH;
  return [
    ['approve', { outcome: 'approve', context_identity: id, verdict: { decision: 'allow' } }],
    [
      'approve with nulls',
      {
        outcome: 'approve',
        context_identity: id,
        verdict: { decision: 'allow', reason: null, message: null },
      },
    ],
    ['approve deny', { outcome: 'approve', context_identity: id, verdict: { decision: 'deny' } }],
    [
      'reject',
      { outcome: 'reject', context_identity: null, verdict: { decision: 'deny', reason: 'no' } },
    ],
    ['reject allow', { outcome: 'reject', context_identity: id, verdict: { decision: 'allow' } }],
    ['unresolved', { outcome: 'unresolved', context_identity: id }],
    ['unresolved verdict null', { outcome: 'unresolved', context_identity: id, verdict: null }],
    [
      'unresolved with verdict',
      { outcome: 'unresolved', context_identity: id, verdict: { decision: 'deny' } },
    ],
    ['approve without verdict', { outcome: 'approve', context_identity: id }],
    ['identity absent', { outcome: 'unresolved' }],
    ['unknown member', { outcome: 'unresolved', context_identity: id, note: 'x' }],
    ['unknown outcome', { outcome: 'maybe', context_identity: id }],
  ];
}
