/**
 * What a remote TypeScript host imports to talk to Checkpoint. No server
 * code: only `fetch` and the engine's types.
 */
export {
  ApprovalClientError,
  HttpApprovalResolver,
  type HttpApprovalResolverOptions,
  type TicketCreated,
} from './http-approval-resolver.ts';
export { denySetOf } from '@checkpoint/agent-hooks';
export {
  BatchingRecordSink,
  HttpRecordSink,
  type HttpRecordSinkOptions,
  type RecordRefusal,
  type RecordSinkStats,
} from './record-sink.ts';
