/**
 * Agent Hooks 0.1 engine: the one public entry point. Pure and
 * runtime-neutral: no I/O, no environment, no Node builtin, so it runs
 * unchanged in Node and in a browser bundle. One runtime dependency:
 * @noble/hashes, the SHA-256 of the §10.2 identity where the runtime offers
 * no synchronous native one (sha256.ts).
 */

// Host, sessions and the bracketed actions.
export { createHost, Host } from './host.ts';
export type { Capabilities, HostOptions, PolicyOptions } from './config.ts';
export { Session, type SessionOptions, type ExtraFields } from './session.ts';
export {
  callModel,
  callModelStream,
  callTool,
  toolError,
  type Blocked,
  type ModelOutcome,
  type ModelRequest,
  type ToolOutcome,
} from './actions.ts';
export { assembleStream, type Assembled, type StreamChunk } from './streaming.ts';
export { InterceptionBlocked } from './blocked.ts';

// Verdicts and contexts.
export { Verdict } from './verdict.ts';
export {
  buildContext,
  type ContextCore,
  type Message,
  type ModelResponse,
  type PointFields,
  type ToolCall,
} from './context-builder.ts';
export { redactPaths, redactionTouchedByEdit, type TouchedRedaction } from './redaction.ts';

// Validators shared with the server, which checks what hosts send exactly as the engine does.
export { validateVerdict, type VerdictCheck } from './validate-verdict.ts';
export { validateResolution, type ResolutionCheck } from './validate-resolution.ts';
export { validateContextEnvelope, type EnvelopeCheck } from './validate-context.ts';
export { projectVerdictForRecord, resolveComposition, truncateUtf8 } from './record.ts';
export { applyTransform, TARGET_LOCATIONS, type TransformOutcome } from './transform.ts';
export {
  formatPath,
  formatSegments,
  isMemberName,
  parseTransformPath,
  pathsOverlap,
  type ParsedPath,
  type PathError,
  type PathSegment,
} from './path.ts';
export { isolatedView, isView } from './isolation.ts';
export { toPlain, NonJsonValueError } from './plain.ts';
export { toComposition } from './config.ts';

// Handing records and approval consultations to a store: shared by lib/client's
// HTTP transports and the server's in-process ones.
export {
  BatchingRecordSink,
  type BatchingOptions,
  type RecordSinkStats,
  type RecordTransport,
} from './batching-sink.ts';
export type { IndexedRefusal, RecordRefusal, SendResult } from './send-result.ts';
export { denySetOf } from './deny-set.ts';

// Identity and the value domain (identity engineer's modules).
export { canonicalJson } from './canonical-json.ts';
export {
  customIdentityProvider,
  type IdentityProvider,
  identityOfCanonical,
  isContentDerived,
  jcsSha256,
  projectForIdentity,
} from './identity.ts';
export { checkValueDomain } from './value-domain.ts';
export { utf8Length } from './utf8.ts';
export { parseJsonText } from './json-text.ts';

// Errors and vocabularies.
export { HooksConfigError, HooksError, ValueDomainError } from './errors.ts';
export * from './vocabulary.ts';
export type {
  AgentContext,
  ApprovalConsultation,
  ApprovalRedactor,
  ApprovalRequest,
  ApprovalResolution,
  ApprovalResolver,
  Composition,
  EmissionResult,
  InterceptionRecord,
  Interceptor,
  InterceptorRegistration,
  OnApproval,
  OnDisagreement,
  OnTransformConflict,
  RecordComposition,
  RecordSink,
  TransformSpec,
  VerdictSummary,
  Warning,
} from './types.ts';
