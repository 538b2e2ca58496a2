/**
 * Agent Hooks 0.1 engine: the one public entry point. Pure: no I/O, no
 * environment, one runtime dependency for canonical JSON.
 */

// Host, sessions and the bracketed actions.
export { createHost, Host } from './host';
export type { Capabilities, HostOptions, PolicyOptions } from './config';
export { Session, type SessionOptions, type ExtraFields } from './session';
export {
  callModel,
  callModelStream,
  callTool,
  toolError,
  type Blocked,
  type ModelOutcome,
  type ModelRequest,
  type ToolOutcome,
} from './actions';
export { assembleStream, type Assembled, type StreamChunk } from './streaming';
export { InterceptionBlocked } from './blocked';

// Verdicts and contexts.
export { Verdict } from './verdict';
export {
  buildContext,
  type ContextCore,
  type Message,
  type ModelResponse,
  type PointFields,
  type ToolCall,
} from './context-builder';
export { redactPaths } from './redaction';

// Validators shared with the server, which checks what hosts send exactly as the engine does.
export { validateVerdict, type VerdictCheck } from './validate-verdict';
export { validateResolution, type ResolutionCheck } from './validate-resolution';
export { validateContextEnvelope, type EnvelopeCheck } from './validate-context';
export { projectVerdictForRecord, resolveComposition, truncateUtf8 } from './record';
export { applyTransform, TARGET_LOCATIONS, type TransformOutcome } from './transform';
export {
  formatPath,
  formatSegments,
  isMemberName,
  parseTransformPath,
  type ParsedPath,
  type PathError,
  type PathSegment,
} from './path';
export { isolatedView, isView } from './isolation';
export { toPlain, NonJsonValueError } from './plain';
export { toComposition } from './config';

// Handing records and approval consultations to a store: shared by lib/client's
// HTTP transports and the server's in-process ones.
export {
  BatchingRecordSink,
  type BatchingOptions,
  type RecordSinkStats,
  type RecordTransport,
} from './batching-sink';
export type { IndexedRefusal, RecordRefusal, SendResult } from './send-result';
export { denySetOf } from './deny-set';

// Identity and the value domain (identity engineer's modules).
export { canonicalJson } from './canonical-json';
export {
  customIdentityProvider,
  type IdentityProvider,
  identityOfCanonical,
  isContentDerived,
  jcsSha256,
  projectForIdentity,
} from './identity';
export { checkValueDomain } from './value-domain';
export { parseJsonText } from './json-text';

// Errors and vocabularies.
export { HooksConfigError, HooksError, ValueDomainError } from './errors';
export * from './vocabulary';
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
} from './types';
