/**
 * The CTK vector (§13.2) as TypeScript sees it once it has passed
 * `vectors.schema.json`. Only what the runner reads is typed; the schema is
 * the authority on shape.
 */
import type { InterceptionPoint } from '@checkpoint/agent-hooks';

export const CAPABILITIES = [
  'model_calls',
  'tool_calls',
  'parallel_tool_calls',
  'streaming',
  'multi_turn',
  'int64_json',
  'bigint_json',
  'buffered_output',
  'incremental_output',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface InterceptorRule {
  at: InterceptionPoint;
  match?: JsonObject;
  return?: JsonObject;
  fault?: 'raise' | 'malformed_verdict' | 'mutate';
}

export interface ApprovalRule {
  match?: JsonObject;
  resolve: {
    outcome?: 'approve' | 'reject' | 'unresolved';
    verdict?: JsonObject;
    fault?: 'raise';
    identity_override?: string;
    echo_recomputed?: boolean;
  };
}

export interface ToolSpec {
  name: string;
  schema?: JsonObject;
  behavior: { when_args?: JsonObject; return: Json; is_error?: boolean }[];
}

export interface ScriptedResponse {
  content: Json;
  tool_calls: { id: string; name: string; args: JsonObject }[];
  finish_reason: string;
  stream?: string[];
  stream_truncated?: boolean;
}

export interface Scenario {
  input: { content: Json; role: 'user' | 'system' | 'external' };
  tools?: ToolSpec[];
  model_script?: { respond: ScriptedResponse }[];
}

export type RunOutcome = 'completed' | 'blocked' | 'suspended' | 'error';

export interface ExpectedInterception {
  interception_point: InterceptionPoint;
  context?: JsonObject;
  context_must_validate?: boolean;
  context_must_contain?: string[];
  context_must_not_contain?: string[];
}

export interface ExpectedRecord {
  interception_point: InterceptionPoint;
  assert?: JsonObject;
  absent?: string[];
  present?: string[];
}

export interface Expect {
  interceptions: ExpectedInterception[];
  sequence_strict?: boolean;
  interceptions_absent?: InterceptionPoint[];
  tool_invocations?: { name: string; args: JsonObject }[];
  tool_not_invoked?: string[];
  final_output?: Json;
  released_output?: Json;
  persisted_must_not_contain?: string[];
  run_outcome: 'completed' | 'blocked' | 'error';
  run_outcome_by_posture?: {
    posture: 'tool_seam_host_error';
    outcomes: Record<'continue' | 'terminate', 'completed' | 'blocked' | 'error'>;
  };
  identities_equal?: boolean;
  records?: ExpectedRecord[];
}

export interface Composition {
  profile:
    | 'sequential/first_deny'
    | 'sequential/run_all'
    | 'parallel/strictest'
    | 'parallel/unanimous';
  on_approval?: 'stop' | 'resume';
  on_disagreement?: 'deny' | 'approval';
  on_transform_conflict?: 'deny' | 'approval';
}

export interface Vector {
  id: string;
  title: string;
  spec_clause: string;
  part?: string;
  mode?: 'enforce' | 'evaluate_only';
  capabilities?: Capability[];
  composition?: Composition;
  identity_provider?: 'jcs-sha256' | 'ctk-fault' | null;
  redact_for_approval?: string[];
  scenario: Scenario;
  interceptor_script?: InterceptorRule[];
  interceptor_scripts?: InterceptorRule[][];
  approval_script?: ApprovalRule[];
  expect: Expect;
}

/** A vector as loaded: its file name beside it, for messages. */
export interface LoadedVector {
  file: string;
  vector: Vector;
}
