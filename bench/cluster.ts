// `npm run bench:cluster [-- --json] [-- --polls N --expiries N --callbacks N]
//   [--slow-callbacks N --idle-seconds S --no-build]`
//
// Issue 17's scale test, on this machine: two app instances (`next start`,
// RUN_WORKER=false) and one worker process (`npm run worker`) on a scratch
// PostgreSQL database and a Redis database index of the run's own. Setup
// writes the hosts, their API keys and a Slack-linked reviewer straight into
// the database (as bench/approvals does); everything measured goes through
// HTTP, processes, Redis and SQL reads only, so it measures whatever the
// queue and expiry code of the day does. Scenarios, in the order they run
// (a/b, d, c, e):
// (a) decision → answer: long-polls parked on one instance, decided through
//     the other (Slack interactivity, a signed HTTP request), from the
//     decision's commit (`decidedAt`) to the long-poll's 200;
// (b) idle database load: transactions/s of the scratch database with the
//     polls parked and nothing happening;
// (c) expiry lateness: N tickets with one deadline, then how long another
//     host's callbacks take right after the storm;
// (d) callbacks: a fast host's callback latency while a slow host's
//     receiver (4.5 s per answer) holds delivery slots;
// (e) faults: kill -9 of the worker and FLUSHDB of Redis mid-burst;
// (f) RSS of each process, idle and after the bursts.
// Exits 1 when a callback was lost or duplicated (one decision delivered
// under two webhook-ids: a receiver deduplicating by id, as Standard
// Webhooks asks, would act twice), so the run is a check as well as a
// benchmark. The same id sent again after an acknowledgement (a worker
// killed between the receiver's 2xx and recording it) is at-least-once
// delivery working as designed: reported as `redelivered_after_ack`.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ensureBuild } from './cluster/build';
import { cleanupAll, rssMiB } from './cluster/infra';
import {
  callbacks,
  decisionsAndIdle,
  deliveryStates,
  drain,
  fastProbe,
  outboxByKind,
  expiryStorm,
  faults,
} from './cluster/scenarios';
import { type Cluster, startCluster } from './cluster/setup';
import { benchLogger } from './support';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    polls: { type: 'string', default: '1000' },
    expiries: { type: 'string', default: '2000' },
    callbacks: { type: 'string', default: '200' },
    'slow-callbacks': { type: 'string', default: '16' },
    'idle-seconds': { type: 'string', default: '10' },
    /** Use the build in NEXT_DIST_DIR as it is, even if older than the sources. */
    'no-build': { type: 'boolean', default: false },
  },
});
const JSON_ONLY = values.json;
const log = benchLogger(JSON_ONLY);
const positive = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
};
const POLLS = positive('polls', values.polls);
const EXPIRIES = positive('expiries', values.expiries);
const CALLBACKS = positive('callbacks', values.callbacks);
const SLOW = positive('slow-callbacks', values['slow-callbacks']);
const IDLE_S = positive('idle-seconds', values['idle-seconds']);
const DIST_DIR = process.env.NEXT_DIST_DIR || '.next-bench';

function rss(c: Cluster) {
  return {
    [c.apps[0].name]: rssMiB(c.apps[0].proc.pid),
    [c.apps[1].name]: rssMiB(c.apps[1].proc.pid),
    // worker-1, or worker-2 once (e) replaced the killed one.
    [c.worker.name]: rssMiB(c.worker.pid),
  };
}

async function main() {
  const started = Date.now();
  const built = values['no-build'] ? false : ensureBuild(DIST_DIR, log, JSON_ONLY);
  const c = await startCluster(DIST_DIR, log);
  const rssIdle = rss(c);

  const ab = await decisionsAndIdle(c, POLLS, IDLE_S, log);
  const cb = await callbacks(c, CALLBACKS, SLOW, log);
  const expiry = await expiryStorm(c, EXPIRIES, log);
  // Another host's callbacks right after the storm: does its follow-up work hold them up?
  log('(c) fast-host callbacks right after the expiry storm…');
  const probe = await fastProbe(c);
  const outbox = await outboxByKind(c);
  const drained = await drain(c, 180_000);
  const fault = await faults(c, CALLBACKS, log);
  const rssAfter = rss(c);

  const fastScope = new Set([...cb.fastIds, ...probe.ids, ...fault.ids]);
  const total = {
    fast: c.fast.tally(fastScope),
    slow: c.slow.tally(new Set(cb.slowIds)),
  };
  const lost = total.fast.lost + total.slow.lost;
  const duplicated = total.fast.duplicated + total.slow.duplicated;
  const redelivered = total.fast.redelivered_after_ack + total.slow.redelivered_after_ack;
  const result = {
    bench: 'cluster',
    at: new Date(started).toISOString(),
    loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number),
    built,
    dist_dir: DIST_DIR,
    processes: { apps: 2, workers_started: c.workers },
    worker_env: Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => k.startsWith('WORKER_CONCURRENCY') || k === 'WEBHOOK_HOST_CONCURRENCY',
      ),
    ),
    idle: ab.idle,
    decisions: ab.decisions,
    expiry: {
      ...expiry,
      // After the probe: how long the storm's follow-up jobs (outbox rows of
      // approvals.* and webhooks.*) kept the worker busy beyond that.
      follow_up_drained_after_s: drained,
      outbox_after: outbox,
      fast_callbacks_after_storm_ms: probe.decision_to_callback_ms,
    },
    callbacks: {
      fast: { ...cb.fast, ...c.fast.tally(new Set(cb.fastIds)) },
      slow: { ...cb.slow, ...c.slow.tally(new Set(cb.slowIds)) },
    },
    faults: {
      decisions: fault.decisions,
      events: fault.events,
      settled_after_s: fault.settled_after_s,
      repeats_after_ack: fault.repeats,
      ...c.fast.tally(new Set(fault.ids)),
    },
    deliveries_by_status: await deliveryStates(c),
    rss_mib: { idle: rssIdle, after_bursts: rssAfter },
    lost,
    duplicated,
    redelivered_after_ack: redelivered,
    ok: lost === 0 && duplicated === 0,
    wall_s: Math.round((Date.now() - started) / 1000),
  };
  return result;
}

main()
  .then(
    async (r) => {
      await cleanupAll();
      if (JSON_ONLY) console.log(JSON.stringify(r));
      else print(r);
      process.exit(r.ok ? 0 : 1);
    },
    async (err) => {
      console.error(err instanceof Error ? err.stack : err);
      await cleanupAll();
      process.exit(2);
    },
  )
  .catch(() => process.exit(2));

function print(r: Awaited<ReturnType<typeof main>>) {
  const f = (s: { p50: unknown; p99: unknown; max: unknown } | string) =>
    typeof s === 'string' ? s : `p50 ${s.p50}  p99 ${s.p99}  max ${s.max} ms`;
  const out = benchLogger(false);
  out(`\ncluster bench (load average ${r.loadavg.join(' ')}; 2 apps + worker)`);
  out(
    `(a) decision → answer, ${r.decisions.polls} polls: ${f(r.decisions.decision_to_answer_ms)}` +
      `  (request → answer ${f(r.decisions.request_to_answer_ms)}; unanswered ${r.decisions.unanswered})`,
  );
  out(
    `(b) idle, ${r.idle.parked_polls} parked polls: ${r.idle.db_transactions_per_s} transactions/s` +
      ` (${r.idle.db_transactions_per_s_without_polls} with none parked)`,
  );
  out(
    `(c) expiry of ${r.expiry.tickets}: decidedAt late ${f(r.expiry.decided_late_ms)}; ` +
      `unpolled ${f(r.expiry.decided_late_unpolled_ms)}; answers ${f(r.expiry.answer_late_ms)}; ` +
      `follow-up jobs drained after ${r.expiry.follow_up_drained_after_s} s; ` +
      `fast-host callbacks just after: ${f(r.expiry.fast_callbacks_after_storm_ms)}`,
  );
  const cbf = r.callbacks.fast;
  out(
    `(d) fast host while slow host busy: ${f(cbf.decision_to_callback_ms)} ` +
      `(slow host idle: ${f(cbf.slow_host_idle_ms)}); ` +
      `delivered ${cbf.delivered}/${cbf.expected}, duplicated ${cbf.duplicated}, repeats ${cbf.raw_repeats}; ` +
      `slow ${r.callbacks.slow.delivered}/${r.callbacks.slow.expected}`,
  );
  out(
    `(e) faults [${r.faults.events.join('; ')}]: delivered ${r.faults.delivered}/${r.faults.expected}, ` +
      `lost ${r.faults.lost}, duplicated ${r.faults.duplicated}, ` +
      `redelivered after ack ${r.faults.redelivered_after_ack}, repeats ${r.faults.raw_repeats}, settled in ${r.faults.settled_after_s} s`,
  );
  for (const rep of r.faults.repeats_after_ack)
    out(`    redelivery after ack: ${JSON.stringify(rep)}`);
  out(
    `(f) RSS MiB idle ${JSON.stringify(r.rss_mib.idle)}, after ${JSON.stringify(r.rss_mib.after_bursts)}`,
  );
  out(`deliveries by status ${JSON.stringify(r.deliveries_by_status)}`);
  out(
    `lost ${r.lost}, duplicated ${r.duplicated} (redelivered after ack, same webhook-id: ${r.redelivered_after_ack}): ${r.ok ? 'OK' : 'FAILED'}`,
  );
}
