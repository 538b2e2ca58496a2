import 'server-only';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every metric /api/metrics serves, in one registry. Counters and the
 * histogram live in this process's memory: they reset on restart (which
 * `rate()` copes with; counting from the tables instead would go backwards
 * whenever retention deletes) and a separate worker process (RUN_WORKER=false)
 * keeps its own. The gauges under "read when scraped" are set from PostgreSQL
 * and Redis by `render.ts` right before each scrape.
 */

const PER_PROCESS = '(this process, since it started)';

function create() {
  const registry = new Registry();
  const registers = [registry];
  const metrics = {
    registry,
    recordsIngested: new Counter({
      name: 'checkpoint_records_ingested_total',
      help: `InterceptionRecords stored, by interception point and combined decision ${PER_PROCESS}.`,
      labelNames: ['point', 'decision'] as const,
      registers,
    }),
    recordsHostError: new Counter({
      name: 'checkpoint_records_host_error_total',
      help: `Stored records whose reason is host_error:* ${PER_PROCESS}.`,
      registers,
    }),
    recordsHostFailure: new Counter({
      name: 'checkpoint_records_host_failure_total',
      help: `Stored host-failure records (a host's own failures) ${PER_PROCESS}.`,
      registers,
    }),
    recordsRefused: new Counter({
      name: 'checkpoint_records_refused_total',
      help: `Refused ingest requests, by error code ${PER_PROCESS}.`,
      labelNames: ['code'] as const,
      registers,
    }),
    clientDropped: new Gauge({
      name: 'checkpoint_records_client_dropped',
      help: 'Records a host sink reported dropping (X-Checkpoint-Dropped), by host: the highest running total reported to this process since it started.',
      labelNames: ['host'] as const,
      registers,
    }),
    /** The last X-Checkpoint-Dropped total per host, to tell an increase from a repeat. */
    clientDroppedTotals: new Map<string, number>(),
    outboundDuration: new Histogram({
      name: 'checkpoint_outbound_request_duration_seconds',
      help: `Time from sending an outbound request (webhook delivery, resolver consult, Slack incoming webhook) to its answer or failure, by client and outcome ${PER_PROCESS}.`,
      labelNames: ['client', 'outcome'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'checkpoint_webhook_attempts_total',
      help: `Recorded webhook attempts (callbacks and resolver consultations), by endpoint kind and outcome: delivered, failed (the request failed or was refused), not_sent (failed before any request, e.g. a signing secret this process cannot decrypt) ${PER_PROCESS}.`,
      labelNames: ['kind', 'outcome'] as const,
      registers,
    }),
    webhookAttemptDuration: new Histogram({
      name: 'checkpoint_webhook_attempt_duration_seconds',
      help: `Duration of recorded webhook attempts that made a request (timeouts included, at their timeout), by endpoint kind ${PER_PROCESS}.`,
      labelNames: ['kind'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30],
      registers,
    }),
    webhooksAutoDisabled: new Counter({
      name: 'checkpoint_webhooks_auto_disabled_total',
      help: `Webhook endpoints switched off after consecutive failed attempts, by kind ${PER_PROCESS}.`,
      labelNames: ['kind'] as const,
      registers,
    }),
    signInThrottled: new Counter({
      name: 'checkpoint_sign_in_throttled_total',
      help: `Sign-in attempts refused by the back-off, by the scope that refused (pair = account and client, client, account) ${PER_PROCESS}.`,
      labelNames: ['scope'] as const,
      registers,
    }),
    // Read when scraped.
    approvalsRequested: gauge('checkpoint_approvals_requested', 'Approval tickets stored.'),
    approvalsDecided: gauge(
      'checkpoint_approvals_decided',
      'Approval tickets decided, by outcome.',
      ['outcome'],
    ),
    approvalsExpired: gauge(
      'checkpoint_approvals_expired',
      'Approval tickets that expired undecided.',
    ),
    approvalsPending: gauge(
      'checkpoint_approvals_pending',
      'Approval tickets waiting for a decision.',
    ),
    webhookDeliveries: gauge(
      'checkpoint_webhook_deliveries',
      'Webhook deliveries stored (all processes), by endpoint kind and status (pending, delivered, failed, dead).',
      ['kind', 'status'],
    ),
    webhooksDisabled: gauge(
      'checkpoint_webhooks_disabled',
      'Webhook endpoints switched off by failures or a failed self-test (not by an admin), by kind.',
      ['kind'],
    ),
    webhookLatencyP95: gauge(
      'checkpoint_webhook_latency_p95_seconds',
      'p95 of the latest attempt latency of the webhook deliveries created in the last hour (all hosts, all processes), by endpoint kind; 0 without deliveries.',
      ['kind'],
    ),
    outboxBacklog: gauge('checkpoint_outbox_backlog', 'Outbox rows not yet handed to the queue.'),
    queueDepth: gauge(
      'checkpoint_queue_depth',
      'Jobs waiting in the queue (last known while Redis is offline).',
    ),
    queueFailed: gauge('checkpoint_queue_failed', 'Jobs in the failed set.'),
    queueLaneDepth: gauge(
      'checkpoint_queue_lane_depth',
      'Due jobs waiting, per queue (a lane, or `legacy`: the single queue of versions before lanes); absent while Redis is offline.',
      ['queue'],
    ),
    queueLaneActive: gauge('checkpoint_queue_lane_active', 'Jobs running, per queue.', ['queue']),
    queueLaneFailed: gauge('checkpoint_queue_lane_failed', 'Jobs in the failed set, per queue.', [
      'queue',
    ]),
    redisUp: gauge('checkpoint_redis_up', '1 when Redis answered the last probe.'),
    logVerifyOk: gauge(
      'checkpoint_log_verify_ok',
      '1 when the latest run of the transparency log verifier found no failure, 0 when it found one; absent before the first run.',
    ),
    logVerifyLastRun: gauge(
      'checkpoint_log_verify_last_run_timestamp_seconds',
      'When the latest run of the transparency log verifier finished (Unix seconds).',
    ),
    logVerifyFailures: gauge(
      'checkpoint_log_verify_failures',
      'Failing findings (altered, missing, truncated, forged, …) of the latest transparency log verification.',
    ),
  };
  // process_* and nodejs_* (CPU, memory, event-loop lag, GC, handles), after ours.
  collectDefaultMetrics({ register: registry });
  return metrics;

  function gauge(name: string, help: string, labelNames: string[] = []) {
    return new Gauge({ name, help, labelNames, registers });
  }
}

export type CheckpointMetrics = ReturnType<typeof create>;

// One registry per process, even when Next.js evaluates this module in more
// than one bundle: registering a name twice would throw, and two registries
// would each hold half the counts.
const g = globalThis as typeof globalThis & { __checkpointMetrics?: CheckpointMetrics };

export function checkpointMetrics(): CheckpointMetrics {
  g.__checkpointMetrics ??= create();
  return g.__checkpointMetrics;
}
