import 'server-only';
import type { z } from 'zod';
import { approvalExpireJob } from './approval-expire';
import { approvalsCreatedJob, approvalsResolvedJob } from './approvals-fanout';
import { auditPingJob } from './audit-ping';
import type { JobDefinition } from './define-job';
import { housekeepingJob } from './housekeeping';
import { recordsRetentionJob } from './records-retention';
import { webhooksDeliverJob } from './webhooks-deliver';
import { webhooksResolveJob } from './webhooks-resolve';
import { slackPostJob } from './slack-post';
import { slackUpdateJob } from './slack-update';

/**
 * The one job registry (STYLE.md). Adding a job is one entry here: the key is
 * the job name, which is also the OutboxEvent `kind`.
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
} satisfies Record<string, JobDefinition>;

export type JobName = keyof typeof jobRegistry;

/** What a producer passes for job `N` (before the schema's defaults). */
export type JobPayload<N extends JobName> = z.input<(typeof jobRegistry)[N]['schema']>;

export type JobRegistry = Record<string, JobDefinition>;

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(jobRegistry, name);
}
