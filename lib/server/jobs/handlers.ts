import 'server-only';
import { approvalExpireJob } from './approval-expire';
import { approvalsCreatedJob, approvalsResolvedJob } from './approvals-fanout';
import { auditPingJob } from './audit-ping';
import type { JobName } from './definitions';
import type { RunnableJob } from './runnable';
import { housekeepingJob } from './housekeeping';
import { logVerifyJob } from './log-verify';
import { recordsRetentionJob } from './records-retention';
import { slackPostJob } from './slack-post';
import { slackUpdateJob } from './slack-update';
import { webhooksDeliverJob } from './webhooks-deliver';
import { webhooksResolveJob } from './webhooks-resolve';
import { witnessNotifyJob } from './witness-notify';

/**
 * The worker's registry: job name → definition with its handler. Only the
 * worker (queue/worker.ts) imports this module: the handlers load every
 * service they call, and those services write outbox rows, so a producer
 * that loaded it would close an import cycle. Producers use ./definitions.ts.
 * Adding a job: its definition there, its handler here.
 */
export const jobRegistry = {
  'audit.ping': auditPingJob,
  'housekeeping.run': housekeepingJob,
  'approvals.expire': approvalExpireJob,
  'records.retention': recordsRetentionJob,
  'slack.post': slackPostJob,
  'slack.update': slackUpdateJob,
  'approvals.created': approvalsCreatedJob,
  'approvals.resolved': approvalsResolvedJob,
  'webhooks.deliver': webhooksDeliverJob,
  'webhooks.resolve': webhooksResolveJob,
  'log.verify': logVerifyJob,
  'witness.notify': witnessNotifyJob,
} satisfies Record<JobName, RunnableJob>;

export type JobRegistry = Record<string, RunnableJob>;
