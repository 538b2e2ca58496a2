/**
 * Turns a vector's scripts into the plain functions a harness registers
 * (FORMAT.md "Setting up one run"). Each function works on a JSON copy of
 * what it is handed, so it behaves the same on any host's context objects.
 */
import type {
  MockToolResult,
  ProviderSetup,
  RunSetup,
  ScriptedInterceptor,
  ScriptedRedactor,
  ScriptedResolution,
  ScriptedResolver,
} from './harness';
import { parseTransformPath } from '@checkpoint/agent-hooks';
import { ctkJcsSha256 } from './jcs-identity';
import { jsonCopy, matches, parsePath, resolvePath, deepEqual } from './json-path';
import type { ApprovalRule, InterceptorRule, Json, JsonObject, ToolSpec, Vector } from './vector';

/** Thrown by `fault: "raise"`: its type name is all a host may surface (§6.3). */
export class CtkScriptedFault extends Error {
  constructor(where: string) {
    super(`ctk scripted fault in ${where}`);
    this.name = 'CtkScriptedFault';
  }
}

export const MUTATED = 'ctk-mutated';

/** What one run produced on the runner's side: the contexts the first interceptor received. */
export interface Recorder {
  contexts: Record<string, unknown>[];
}

export function scriptedInterceptor(
  rules: InterceptorRule[],
  recorder?: Recorder,
): ScriptedInterceptor {
  return (received: unknown) => {
    const context = jsonCopy(received) as Record<string, unknown>;
    recorder?.contexts.push(jsonCopy(context));
    const rule = rules.find(
      (r) => r.at === context.interception_point && matches(context, r.match),
    );
    if (!rule) return { decision: 'allow' };
    if (rule.fault === 'raise') throw new CtkScriptedFault('interceptor');
    if (rule.fault === 'malformed_verdict') return { decision: 'transform' };
    if (rule.fault === 'mutate') {
      mutateInPlace(received);
      // FORMAT.md: vectors assert on this reason.
      return { decision: 'allow', reason: 'ctk:mutated' };
    }
    return jsonCopy(rule.return);
  };
}

/**
 * §7 isolation probe: overwrite every string leaf of the object the host
 * handed over, in place, and add a member. A host that shares this object
 * with enforcement, identity or a later interceptor will show it.
 */
function mutateInPlace(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const obj = node as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (typeof v === 'string') obj[key] = MUTATED;
    else mutateInPlace(v);
  }
  if (!Array.isArray(node)) obj.ctk_mutated = true;
}

export function scriptedResolver(rules: ApprovalRule[] | undefined): ScriptedResolver | null {
  if (!rules || rules.length === 0) return null;
  return (received) => {
    const request = jsonCopy(received);
    const rule = rules.find((r) => matches(request.context, r.match));
    if (!rule) return { outcome: 'unresolved', context_identity: request.context_identity };
    const { resolve } = rule;
    if (resolve.fault === 'raise') throw new CtkScriptedFault('resolver');
    let identity = request.context_identity;
    if (resolve.echo_recomputed) identity = ctkJcsSha256(request.context);
    else if (resolve.identity_override !== undefined) identity = resolve.identity_override;
    const answer: ScriptedResolution = {
      outcome: resolve.outcome as string,
      context_identity: identity,
    };
    if (resolve.verdict !== undefined) answer.verdict = jsonCopy(resolve.verdict);
    return answer;
  };
}

/** Where each point's target lives among its conditional fields (§3 table, §4.3). */
const TARGET_HOME: Record<string, string> = {
  agent_startup: 'agent_init',
  input: 'input',
  pre_model_call: 'messages',
  post_model_call: 'response',
  pre_tool_call: 'tool_call.args',
  post_tool_call: 'tool_result.value',
  output: 'output',
  agent_shutdown: 'summary',
};

export function scriptedRedactor(paths: string[] | undefined): ScriptedRedactor | null {
  if (!paths || paths.length === 0) return null;
  // The listed paths are §5.2 paths: one outside the grammar is a broken vector, not a no-op.
  for (const path of paths) {
    const parsed = parseTransformPath(path);
    if (!parsed.ok)
      throw new Error(`redact_for_approval ${JSON.stringify(path)}: ${parsed.message}`);
  }
  return (received) => {
    const context = jsonCopy(received) as Record<string, unknown>;
    const home = TARGET_HOME[String(context.interception_point)];
    for (const path of paths) {
      const rest = path.replace(/^\$target/, '');
      if (!resolvePath(context.target, rest).found) continue;
      // Mirror the write into the field the target aliases (§4.3).
      context.target = setAt(context.target, rest, '[redacted]');
      if (home) setAtRoot(context, home, rest);
    }
    return context;
  };
}

function setAtRoot(context: Record<string, unknown>, home: string, rest: string): void {
  const segs = parsePath(home);
  const last = segs.pop() as string;
  const parent = resolvePath(context, segs.map(String).join('.'));
  if (!parent.found || typeof parent.value !== 'object' || parent.value === null) return;
  const holder = parent.value as Record<string, unknown>;
  if (!Object.hasOwn(holder, last)) return;
  holder[last] = setAt(holder[last], rest, '[redacted]');
}

/** Replace the location `rest` (relative path) inside `root`; returns the new root. */
function setAt(root: unknown, rest: string, value: Json): unknown {
  const segs = parsePath(rest);
  if (segs.length === 0) return value;
  const parent = resolvePath(root, segsToPath(segs.slice(0, -1)));
  if (!parent.found || typeof parent.value !== 'object' || parent.value === null) return root;
  (parent.value as Record<string | number, unknown>)[segs[segs.length - 1]] = value;
  return root;
}

function segsToPath(segs: (string | number)[]): string {
  return segs.map((s) => (typeof s === 'number' ? `[${s}]` : `[${JSON.stringify(s)}]`)).join('');
}

export function providerFor(vector: Vector): ProviderSetup {
  if (vector.identity_provider === null) return { kind: 'none' };
  if (vector.identity_provider === 'ctk-fault') {
    return {
      kind: 'custom',
      name: 'ctk-fault',
      compute: () => {
        throw new CtkScriptedFault('identity provider');
      },
    };
  }
  return { kind: 'jcs-sha256' };
}

function mockTool(spec: ToolSpec): (args: JsonObject) => MockToolResult {
  return (args) => {
    const clause = spec.behavior.find(
      (b) => b.when_args === undefined || deepEqual(b.when_args, args),
    );
    if (!clause)
      return {
        value: { error: `ctk: no behavior of ${spec.name} matches these args` },
        isError: true,
      };
    return { value: jsonCopy(clause.return), isError: clause.is_error === true };
  };
}

/** Builds one run's setup. The recorder fills as the first interceptor is called. */
export function buildSetup(vector: Vector): { setup: RunSetup; recorder: Recorder } {
  const recorder: Recorder = { contexts: [] };
  const lists = vector.interceptor_scripts ?? [vector.interceptor_script ?? []];
  const interceptors = lists.map((rules, i) =>
    scriptedInterceptor(rules, i === 0 ? recorder : undefined),
  );
  const tools = new Map((vector.scenario.tools ?? []).map((t) => [t.name, mockTool(t)]));
  const script = (vector.scenario.model_script ?? []).map((m) => m.respond);
  let turn = 0;
  const setup: RunSetup = {
    vectorId: vector.id,
    mode: vector.mode ?? 'enforce',
    composition: vector.composition ?? { profile: 'sequential/first_deny', on_approval: 'stop' },
    identityProvider: providerFor(vector),
    interceptors,
    resolver: scriptedResolver(vector.approval_script),
    redactor: scriptedRedactor(vector.redact_for_approval),
    input: jsonCopy(vector.scenario.input),
    toolNames: (vector.scenario.tools ?? []).map((t) => t.name),
    tool: (name) => tools.get(name),
    nextResponse: () => (turn < script.length ? jsonCopy(script[turn++]) : null),
  };
  return { setup, recorder };
}
