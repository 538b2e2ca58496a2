import 'server-only';
import { z } from 'zod';

/**
 * Every background job's definition: name, payload schema, retry policy and
 * dedupe key. Producers (the outbox and whoever writes outbox rows) import
 * this module; the handlers live apart (./handlers.ts) and only the worker
 * imports them. This module imports no other project module, so a producer
 * never pulls in a handler's services, which themselves write outbox rows.
 */

/**
 * Lanes: each is its own BullMQ queue with its own worker and concurrency
 * (`WORKER_CONCURRENCY_<LANE>`), so one kind of work cannot hold the slots
 * another kind needs. Before, one queue with four slots ran everything, and
 * a host whose receiver answered in 4.5 s delayed another host's callbacks
 * by 60 s and would have delayed expiries the same way (issue 17).
 */
export const JOB_LANES = [
  'expiry',
  'fanout',
  'callbacks',
  'resolver',
  'slack',
  'maintenance',
] as const;
export type JobLane = (typeof JOB_LANES)[number];

/** Worker slots per lane when `WORKER_CONCURRENCY_<LANE>` is unset. */
export const DEFAULT_LANE_CONCURRENCY: Readonly<Record<JobLane, number>> = Object.freeze({
  // Expiries are short database writes that must land at their deadline.
  expiry: 8,
  fanout: 4,
  // Outbound HTTP waits on receivers; the per-host limit keeps one host from taking them all.
  callbacks: 8,
  resolver: 4,
  // Slack's rate limits make more parallel posts pointless.
  slack: 2,
  maintenance: 1,
});

export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  /** The job name, also the OutboxEvent `kind`; must equal its key in `jobDefinitions`. */
  name: string;
  /** The queue (and worker) that runs it. */
  lane: JobLane;
  /** Checked when the outbox row is written, and again by the worker on every run. */
  schema: S;
  /** Runs in total before the job lands in the failed set. */
  attempts?: number;
  /** First retry delay; doubles on every retry. */
  backoffMs?: number;
  /**
   * The outbox dedupeKey (and BullMQ jobId) of this job's work: the same work
   * gets the same key, so it is queued once. Absent: the producer picks one.
   */
  dedupeKey?: (...args: never[]) => string;
}

/** Identity function that keeps the exact type (schema, key builder, which fields are set). */
export function defineJob<D extends JobDefinition>(def: D): D {
  return def;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often the relay requests a housekeeping run (through the outbox). */
export const HOUSEKEEPING_INTERVAL_MS = 5 * 60 * 1000;
/** The AuditEvent action a housekeeping run leaves (shown on /status). */
export const HOUSEKEEPING_ACTION = 'housekeeping.run';

const byTicket = z.object({ ticketId: z.uuid() }).strict();
/**
 * A ticket fan-out job carries its host, so the relay can give a host's
 * burst lower priorities than another host's single job (queue/relay.ts,
 * issue 17). Optional: rows and jobs written before it still parse.
 */
const byTicketOfHost = z.object({ ticketId: z.uuid(), hostId: z.uuid().optional() }).strict();
const trigger = z.object({ trigger: z.enum(['schedule', 'manual']) }).strict();

export type TicketFanoutKind = 'approvals.created' | 'approvals.resolved';

export const jobDefinitions = {
  /** Writes one AuditEvent: proves outbox → relay → BullMQ → worker → database. */
  'audit.ping': defineJob({
    name: 'audit.ping',
    lane: 'maintenance',
    schema: z.object({ note: z.string().max(200) }).strict(),
  }),
  /** Deletes expired plumbing rows; one run per interval, whichever relay proposes it. */
  'housekeeping.run': defineJob({
    name: 'housekeeping.run',
    lane: 'maintenance',
    schema: trigger,
    dedupeKey: (at: number) => `housekeeping.${Math.floor(at / HOUSEKEEPING_INTERVAL_MS)}`,
  }),
  /** Expires one ticket at its deadline (written with the ticket, due at the deadline). */
  'approvals.expire': defineJob({
    name: 'approvals.expire',
    lane: 'expiry',
    schema: byTicket,
    attempts: 5,
    backoffMs: 1_000,
    dedupeKey: (ticketId: string) => `approvals.expire.${ticketId}`,
  }),
  /** Deletes records past the retention age; one run per UTC day. */
  'records.retention': defineJob({
    name: 'records.retention',
    lane: 'maintenance',
    schema: trigger,
    attempts: 3,
    backoffMs: 60_000,
    dedupeKey: (at: Date) => `records.retention.${Math.floor(at.getTime() / DAY_MS)}`,
  }),
  /** Posts a ticket to Slack; Slack outages retried 5 s up to about 10 minutes. */
  'slack.post': defineJob({
    name: 'slack.post',
    lane: 'slack',
    schema: byTicket,
    attempts: 8,
    backoffMs: 5_000,
    dedupeKey: (ticketId: string) => `slack.post.${ticketId}`,
  }),
  /** Shows a settled ticket's outcome in Slack (an edit, or a follow-up post). */
  'slack.update': defineJob({
    name: 'slack.update',
    lane: 'slack',
    schema: byTicket,
    attempts: 8,
    backoffMs: 5_000,
    dedupeKey: (ticketId: string) => `slack.update.${ticketId}`,
  }),
  /** A ticket was created: the fan-out's creation steps (resolver webhook, Slack post). */
  'approvals.created': defineJob({
    name: 'approvals.created',
    lane: 'fanout',
    schema: byTicketOfHost,
    attempts: 8,
    backoffMs: 2_000,
    dedupeKey: (ticketId: string) => `approvals.created.${ticketId}`,
  }),
  /** A ticket was approved, rejected or expired: callback delivery, Slack update. */
  'approvals.resolved': defineJob({
    name: 'approvals.resolved',
    lane: 'fanout',
    schema: byTicketOfHost,
    attempts: 8,
    backoffMs: 2_000,
    dedupeKey: (ticketId: string) => `approvals.resolved.${ticketId}`,
  }),
  /**
   * One attempt of a callback delivery. Its retries are outbox rows written
   * by the delivery itself (the webhook policy's delays); BullMQ's attempts
   * only cover a throw such as the database being down.
   */
  'webhooks.deliver': defineJob({
    name: 'webhooks.deliver',
    lane: 'callbacks',
    schema: z
      .object({
        deliveryId: z.uuid(),
        attempt: z.number().int().min(1).max(1000),
        manual: z.boolean().default(false),
      })
      .strict(),
    attempts: 5,
    backoffMs: 2_000,
    dedupeKey: (deliveryId: string, attempt: number, manual = false) =>
      `webhooks.deliver.${deliveryId}.${attempt}${manual ? '.m' : ''}`,
  }),
  /**
   * Verifies the whole transparency log (transparency/verifier.ts) and
   * proposes the next run; one run per LOG_VERIFY_INTERVAL_MS slot (the key
   * carries the slot), `manual` ones keyed by their request.
   */
  'log.verify': defineJob({
    name: 'log.verify',
    lane: 'maintenance',
    schema: z
      .object({ trigger: z.enum(['schedule', 'manual']), requestId: z.string().max(64).optional() })
      .strict(),
    attempts: 2,
    backoffMs: 60_000,
    dedupeKey: (slot: string) => `log.verify.${slot}`,
  }),
  /** POSTs one signed tree head to one witness; retried with back-off, failures shown on its page. */
  'witness.notify': defineJob({
    name: 'witness.notify',
    lane: 'callbacks',
    schema: z.object({ witnessId: z.uuid(), size: z.number().int().min(0) }).strict(),
    attempts: 8,
    backoffMs: 5_000,
    dedupeKey: (witnessId: string, size: number) => `witness.notify.${witnessId}.${size}`,
  }),
  /** Consults the host's resolver webhook for a new ticket, once. */
  'webhooks.resolve': defineJob({
    name: 'webhooks.resolve',
    lane: 'resolver',
    schema: byTicket,
    attempts: 3,
    backoffMs: 1_000,
    dedupeKey: (ticketId: string) => `webhooks.resolve.${ticketId}`,
  }),
} satisfies Record<string, JobDefinition>;

export type JobName = keyof typeof jobDefinitions;
export type JobDefinitions = Record<string, JobDefinition>;

/** What a producer passes for job `N` (before the schema's defaults). */
export type JobPayload<N extends JobName> = z.input<(typeof jobDefinitions)[N]['schema']>;

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(jobDefinitions, name);
}

/**
 * The lane of job `name`. A name no definition knows goes to `maintenance`:
 * the worker logs and drops it there, away from time-critical work.
 */
export function laneOf(name: string, definitions: JobDefinitions = jobDefinitions): JobLane {
  return Object.hasOwn(definitions, name) ? definitions[name].lane : 'maintenance';
}

// The keys callers build by name (the same functions as in the table).
export const housekeepingDedupeKey = jobDefinitions['housekeeping.run'].dedupeKey;
export const approvalExpireDedupeKey = jobDefinitions['approvals.expire'].dedupeKey;
export const recordsRetentionDedupeKey = jobDefinitions['records.retention'].dedupeKey;
export const slackPostDedupeKey = jobDefinitions['slack.post'].dedupeKey;
export const slackUpdateDedupeKey = jobDefinitions['slack.update'].dedupeKey;
export const deliverDedupeKey = jobDefinitions['webhooks.deliver'].dedupeKey;
export const resolveDedupeKey = jobDefinitions['webhooks.resolve'].dedupeKey;

export function ticketFanoutDedupeKey(kind: TicketFanoutKind, ticketId: string): string {
  return jobDefinitions[kind].dedupeKey(ticketId);
}
