/**
 * The reference agent loop of FORMAT.md on the public API of lib/hooks, and
 * the worked example of wiring a framework (HARNESS.md): one host per run,
 * one session, model and tool calls bracketed by the engine's helpers.
 */
import {
  type ApprovalResolution,
  type ApprovalResolver,
  type AgentContext,
  createHost,
  customIdentityProvider,
  jcsSha256,
  parseJsonText,
  type HostOptions,
  type InterceptionRecord,
  type Message,
  type Session,
  toolError,
} from '@checkpoint/agent-hooks';
import type {
  Harness,
  HarnessDeclaration,
  Postures,
  ProviderSetup,
  RunRecord,
  RunSetup,
} from './harness';
import { jsonCopy } from './json-path';
import type { Json, JsonObject } from './vector';

export const REFERENCE_DECLARATION: HarnessDeclaration = {
  framework: 'checkpoint',
  adapterVersion: '0.1.0',
  sdk: 'typescript@0.1.0',
  capabilities: [
    'model_calls',
    'tool_calls',
    'parallel_tool_calls',
    'multi_turn',
    'buffered_output',
  ],
  postures: { tool_seam_host_error: 'continue' },
  buffered_output: true,
  identity_provider: 'jcs-sha256',
};

function provider(p: ProviderSetup): HostOptions['identityProvider'] {
  if (p.kind === 'none') return null;
  if (p.kind === 'custom') return customIdentityProvider(p.name, p.compute);
  return 'jcs-sha256';
}

function hostFor(setup: RunSetup, records: InterceptionRecord[]) {
  const resolver = setup.resolver;
  const redactor = setup.redactor;
  return createHost({
    agent: { id: 'ctk-agent', framework: 'checkpoint' },
    interceptors: setup.interceptors.map((fn, i) => ({
      name: `ctk-${i}`,
      intercept: (context: AgentContext) => fn(context),
    })),
    mode: setup.mode,
    composition: setup.composition,
    identityProvider: provider(setup.identityProvider),
    resolver: resolver
      ? (((request, signal, consultation) =>
          resolver(request, signal, consultation) as ApprovalResolution) satisfies ApprovalResolver)
      : undefined,
    redactor: redactor ? (context) => redactor(context) as AgentContext : undefined,
    sinks: [(record) => void records.push(record)],
  });
}

/** Runs the scenario; returns how it ended and what the caller received. */
async function loop(
  session: Session,
  setup: RunSetup,
  invocations: RunRecord['tool_invocations'],
  posture: Postures['tool_seam_host_error'],
) {
  const startup = await session.start({ tools_registered: [...setup.toolNames].sort() });
  if (!startup.proceed) return { blocked: true, final: null };
  const input = await session.input(setup.input.content, setup.input.role);
  if (!input.proceed) return { blocked: true, final: null };
  const admitted = input.target as { content: Json; role: string };
  let messages: Message[] = [{ role: admitted.role, content: admitted.content }];
  let final: Json = null;
  for (let response = setup.nextResponse(); response; response = setup.nextResponse()) {
    const { content, tool_calls, finish_reason } = response;
    const model = await session.callModel({ model: { id: 'ctk-model' }, messages }, () => ({
      content,
      tool_calls,
      finish_reason,
    }));
    if (model.status === 'blocked') return { blocked: true, final: null };
    const answer = model.response;
    // §4.2: message content is a string or an object, so a tool-calling turn's null becomes "".
    messages = [
      ...model.messages,
      { role: 'assistant', content: answer.content ?? '', tool_calls: answer.tool_calls },
    ];
    final = answer.content as Json;
    if (answer.tool_calls.length === 0) break;
    for (const call of answer.tool_calls) {
      const mock = setup.tool(call.name);
      const outcome = await session.callTool(call, (args) => {
        const passed = jsonCopy(args) as JsonObject;
        invocations.push({ name: call.name, args: passed });
        if (!mock) return toolError({ error: `unknown tool ${call.name}` });
        const result = mock(passed);
        return result.isError ? toolError(result.value) : result.value;
      });
      // §6.2 lets the host's own semantics end the turn instead; the declared posture says which.
      if (outcome.status === 'blocked' && posture === 'terminate' && isHostError(outcome.reason)) {
        return { blocked: true, final: null };
      }
      messages.push(toolMessage(call.id, call.name, outcome));
    }
  }
  const output = await session.output(final);
  if (!output.proceed) return { blocked: true, final: null };
  return { blocked: false, final: (output.target as { content: Json }).content };
}

/**
 * §6.2: a blocked call is surfaced to the model as a tool error carrying the
 * deny reason; §6.1: a denied result is discarded, never shown.
 */
function toolMessage(
  id: string,
  name: string,
  outcome: Awaited<ReturnType<Session['callTool']>>,
): Message {
  if (outcome.status === 'completed') {
    const value = outcome.value;
    const content = typeof value === 'string' ? value : JSON.stringify(value ?? null);
    return { role: 'tool', tool_call_id: id, name, content, is_error: outcome.isError };
  }
  const what = outcome.stage === 'pre' ? 'tool call blocked' : 'tool result withheld';
  return {
    role: 'tool',
    tool_call_id: id,
    name,
    content: `${what}: ${outcome.reason ?? 'denied'}`,
    is_error: true,
  };
}

const isHostError = (reason: string | undefined) => reason?.startsWith('host_error:') === true;

/** The reference harness, with the §6.2 tool-seam posture it should declare and honour. */
export function createReferenceHarness(
  posture: Postures['tool_seam_host_error'] = 'continue',
): Harness {
  return {
    declaration: { ...REFERENCE_DECLARATION, postures: { tool_seam_host_error: posture } },
    identity: {
      compute: (context) => jcsSha256.compute(context),
      computeText: (json) => jcsSha256.compute(parseJsonText(json)),
    },
    run: (setup) => runReference(setup, posture),
  };
}

async function runReference(
  setup: RunSetup,
  posture: Postures['tool_seam_host_error'],
): Promise<RunRecord> {
  const records: InterceptionRecord[] = [];
  const invocations: RunRecord['tool_invocations'] = [];
  const host = hostFor(setup, records);
  const session = host.session({ id: `ctk-${setup.vectorId}` });
  let result: { blocked: boolean; final: Json } = { blocked: true, final: null };
  let error: string | null = null;
  try {
    result = await loop(session, setup, invocations, posture);
  } catch (e) {
    error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
  // §6.1a: agent_shutdown is emitted in every case.
  await session.shutdown(error || result.blocked ? 'error' : 'completed');
  // Sinks run on microtasks (§10.3: they never block an emission); let them drain.
  await new Promise((r) => setImmediate(r));
  const wire = records.map((r) => jsonCopy(r) as unknown as InterceptionRecord);
  return {
    outcome: error ? 'error' : result.blocked ? 'blocked' : 'completed',
    final_output: error ? null : result.final,
    tool_invocations: invocations,
    error,
    identities: wire.map((r) => ({
      input_identity: r.input_identity,
      enforced_identity: r.enforced_identity,
    })),
    records: wire,
  };
}

/** The host this project claims for (CLAIMS.md): posture `continue`. */
export const referenceHarness: Harness = createReferenceHarness('continue');
