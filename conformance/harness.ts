/**
 * What a framework implements to be tested by the CTK (§13.2): one agent run
 * per vector, on a fresh host, wired to the scripted interceptors, resolver,
 * redactor, model and tools the runner hands over. See HARNESS.md.
 *
 * Everything crossing this interface is plain JSON data or a plain function,
 * so a host that is not built on lib/hooks can implement it as well.
 */
import type {
  Capability,
  Composition,
  Json,
  JsonObject,
  RunOutcome,
  ScriptedResponse,
} from './vector';

/** §13.1 postures: what the host does where the spec permits either. */
export interface Postures {
  /** §6.2: after a host_error:* deny at the tool seam, keep the loop going or end the turn. */
  tool_seam_host_error: 'continue' | 'terminate';
}

/** The host's declared surface (§13.1), printed on the report. */
export interface HarnessDeclaration {
  framework: string;
  adapterVersion: string;
  sdk: string;
  capabilities: readonly Capability[];
  postures: Postures;
  /** §12.1a; declaration-only, the CTK cannot exercise streaming egress. */
  buffered_output: boolean;
  /** The provider the claim is made for (§10.1); golden identities apply only to jcs-sha256 (§13.2). */
  identity_provider: string | null;
}

/** The host's identity provider, exposed for the golden identity fixtures (§10.2). */
export interface IdentitySeam {
  /** context_identity of a context object; throws when the provider refuses it. */
  compute(context: unknown): string;
  /** The same over raw JSON text read through the host's own JSON funnel (for values JSON.parse would round). */
  computeText?(json: string): string;
}

/** A scripted interceptor: sync; it may throw or return an invalid verdict on purpose. */
export type ScriptedInterceptor = (context: unknown) => unknown;

export interface ScriptedRequest {
  context_identity: string | null;
  interception_point: string;
  verdict: unknown;
  context: unknown;
}

export interface ScriptedResolution {
  outcome: string;
  context_identity: string | null;
  verdict?: unknown;
}

/**
 * The scripted approval resolver (§9); it may throw. Vectors read only the
 * request; a harness may pass what its host hands resolvers besides (the
 * reference harness: lib/hooks' abort signal and consultation state).
 */
export type ScriptedResolver = (request: ScriptedRequest, ...host: unknown[]) => ScriptedResolution;

/** The §9 approval redactor: a pure function from the request context to what the approver sees. */
export type ScriptedRedactor = (context: unknown) => unknown;

/** The identity provider the host must declare for this run (§10.1). */
export type ProviderSetup =
  | { kind: 'jcs-sha256' }
  | { kind: 'none' }
  /** A host-defined provider (the CTK's `ctk-fault`, which throws on every call). */
  | { kind: 'custom'; name: string; compute: (context: unknown) => string };

export interface MockToolResult {
  value: Json;
  isError: boolean;
}

/** Everything one run needs; built by the runner from a vector. */
export interface RunSetup {
  vectorId: string;
  mode: 'enforce' | 'evaluate_only';
  /** As the vector spells it; absent knobs are the host's to default (§7.2). */
  composition: Composition;
  identityProvider: ProviderSetup;
  /** In registration order; may be empty (the host must then deny with no_interceptor, §7). */
  interceptors: ScriptedInterceptor[];
  /** `null`: register no resolver. */
  resolver: ScriptedResolver | null;
  /** `null`: register no redactor. */
  redactor: ScriptedRedactor | null;
  input: { content: Json; role: 'user' | 'system' | 'external' };
  /** Registered tool names, as the vector lists them. */
  toolNames: string[];
  /** The mock tools: `undefined` for a name that is not registered. */
  tool(name: string): ((args: JsonObject) => MockToolResult) | undefined;
  /** The mock model: the next scripted response, or `null` when the script is exhausted. */
  nextResponse(): ScriptedResponse | null;
}

export interface RunIdentity {
  input_identity: string | null;
  enforced_identity: string | null;
}

/** What a run returns (FORMAT.md "The reference agent loop"). */
export interface RunRecord {
  outcome: RunOutcome;
  /** The content the caller received; `null` when nothing was returned. */
  final_output: Json;
  /** Every tool call actually made, with the args actually passed. */
  tool_invocations: { name: string; args: JsonObject }[];
  error: string | null;
  /** One per emission, in order. */
  identities: RunIdentity[];
  /** The §10.3 wire-shaped InterceptionRecords, one per emission, in order. */
  records: unknown[];
  /** incremental_output hosts only. */
  released_output?: Json;
  persisted?: Json;
}

export interface Harness {
  declaration: HarnessDeclaration;
  run(setup: RunSetup): Promise<RunRecord>;
  /** Optional: without it the golden identity fixtures are reported as skipped. */
  identity?: IdentitySeam;
}
