// The measured scenarios (a)-(e) of issue 17's scale test. Each takes the
// running cluster and returns plain figures; nothing here reaches into the
// app's modules: HTTP, SQL reads, processes and Redis only.
import pg from 'pg';
import {
  approveViaSlack,
  createTicket,
  type HostClient,
  longPoll,
  type PollAnswer,
  pool,
  type Ticket,
} from './api';
import { flushRedisDb } from './infra';
import type { CallbackReceiver } from './receiver';
import type { Cluster } from './setup';
import { pct, round } from '../support';

type Log = (...a: unknown[]) => void;
/** PGSTAT_IDLE_INTERVAL (10 s) and a margin. */
const STATS_SETTLE_MS = 11_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function summary(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return { n: 0, p50: null, p99: null, max: null };
  return { n: s.length, p50: round(pct(s, 50)), p99: round(pct(s, 99)), max: round(s.at(-1) ?? 0) };
}

/** Milliseconds per ticket of the latest createMany (sizes the expiry storm's lead time). */
let createMsPerTicket = 15;

/** Tickets of one host, created over HTTP on both instances in turn. */
async function createMany(
  c: Cluster,
  host: HostClient,
  n: number,
  timeoutMs?: () => number,
): Promise<Ticket[]> {
  const ids = Array.from({ length: n }, (_, i) => i);
  const t0 = performance.now();
  const tickets = await pool(ids, 16, (i) => createTicket(c.apps[i % 2].base, host, timeoutMs));
  createMsPerTicket = (performance.now() - t0) / n;
  return tickets;
}

async function decidedAt(c: Cluster, ids: string[]): Promise<Map<string, number>> {
  const r = await c.sql.query<{ id: string; d: Date }>(
    `SELECT id, "decidedAt" AS d FROM "ApprovalTicket" WHERE id = ANY($1::uuid[]) AND "decidedAt" IS NOT NULL`,
    [ids],
  );
  return new Map(r.rows.map((row) => [row.id, row.d.getTime()]));
}

/** Transactions committed or rolled back in the scratch database, read from another database. */
async function xacts(c: Cluster): Promise<number> {
  const admin = new pg.Client({
    connectionString:
      process.env.BENCH_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres',
  });
  await admin.connect();
  try {
    const r = await admin.query<{ n: string }>(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
      [c.db.name],
    );
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await admin.end();
  }
}

/**
 * Transactions/s of the scratch database over `seconds`. PostgreSQL flushes
 * a backend's counters at most once a second (an idle one within 10 s), so
 * a window under ~10 s is noisy.
 */
async function idleTps(c: Cluster, seconds: number): Promise<number> {
  const x0 = await xacts(c);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const x1 = await xacts(c);
  return round((x1 - x0) / ((performance.now() - t0) / 1000));
}

/**
 * (b) then (a): park `polls` long-polls spread over both instances, measure
 * the database's transactions/s while nothing happens, then approve each
 * ticket through the *other* instance (Slack interactivity over HTTP) and
 * time the decision's commit (`decidedAt`) to the long-poll's answer.
 */
export async function decisionsAndIdle(c: Cluster, polls: number, idleSeconds: number, log: Log) {
  const warm = Math.min(20, Math.max(2, Math.floor(polls / 10)));
  // What the cluster costs with nobody waiting: the floor under the figure below.
  log(`(b) ${idleSeconds} s of idle database load with no long-poll parked…`);
  await sleep(STATS_SETTLE_MS);
  const baseTps = await idleTps(c, idleSeconds);
  log(`(a/b) creating ${polls + warm} tickets…`);
  const tickets = await createMany(c, c.pollHost, polls + warm);
  const abort = new AbortController();
  // Ticket i is parked on instance i % 2 and decided on the other one.
  const answers = tickets.map((t, i) => longPoll(c.apps[i % 2].base, t, abort.signal));
  for (const p of answers) p.catch(() => {});
  // PostgreSQL flushes an idle backend's counters only after 10 s: wait
  // that out (from the end of the parking, a few seconds after its start),
  // or the parking's own transactions land inside the window. The window
  // still ends before the first polls' 30 s wait does.
  await sleep(STATS_SETTLE_MS + 4_000);

  log(`(b) ${tickets.length} long-polls parked; ${idleSeconds} s of idle database load…`);
  const parkedTps = await idleTps(c, idleSeconds);

  log(`(a) ${warm} warm-up then ${polls} decisions through the other instance…`);
  const sent = new Map<string, number>();
  let refused = 0;
  for (let i = 0; i < tickets.length; i++) {
    const t = tickets[i];
    sent.set(t.id, Date.now());
    await approveViaSlack(c.apps[(i + 1) % 2].base, c.reviewer, t).catch((err) => {
      refused++;
      log(String(err));
    });
  }
  const settled = await Promise.race([Promise.allSettled(answers), sleep(60_000).then(() => null)]);
  abort.abort();
  const measured = tickets.slice(warm);
  const commits = await decidedAt(
    c,
    measured.map((t) => t.id),
  );
  const fromCommit: number[] = [];
  const fromRequest: number[] = [];
  let unanswered = 0;
  let repolls = 0;
  measured.forEach((t, j) => {
    const r = settled?.[warm + j];
    if (r?.status !== 'fulfilled' || r.value.outcome !== 'approve') {
      unanswered++;
      return;
    }
    const a: PollAnswer = r.value;
    repolls += a.repolls;
    const at = commits.get(t.id);
    if (at !== undefined) fromCommit.push(a.wallAt - at);
    fromRequest.push(a.wallAt - (sent.get(t.id) ?? a.wallAt));
  });
  return {
    idle: {
      parked_polls: tickets.length,
      seconds: idleSeconds,
      db_transactions_per_s: parkedTps,
      db_transactions_per_s_without_polls: baseTps,
    },
    decisions: {
      polls,
      warmup: warm,
      decided_via: 'POST /api/slack/interactions on the instance the poll is not parked on',
      decision_to_answer_ms: summary(fromCommit),
      request_to_answer_ms: summary(fromRequest),
      unanswered,
      refused,
      repolls,
    },
  };
}

/**
 * (c) `n` tickets with one deadline (each POST asks for the time left to
 * it), a sample of them long-polled; lateness of `decidedAt` and of the
 * answers past `expiresAt`.
 */
export async function expiryStorm(c: Cluster, n: number, log: Log) {
  // Twice the latest creation rate, so the last POST still has time left.
  const budgetMs = Math.round(8_000 + n * Math.max(15, 2 * createMsPerTicket));
  const deadline = Date.now() + budgetMs;
  log(`(c) creating ${n} tickets that all expire in ${Math.round(budgetMs / 1000)} s…`);
  const tickets = await createMany(c, c.expiryHost, n, () => {
    const left = deadline - Date.now();
    if (left < 1_500) throw new Error('the expiry tickets took too long to create');
    return left;
  });
  const sampleSize = Math.min(100, Math.max(1, Math.floor(n / 20)));
  const sample = tickets.slice(0, sampleSize);
  const polled = sample.map((t, i) => longPoll(c.apps[i % 2].base, t));
  const until = deadline + 60_000;
  for (;;) {
    const r = await c.sql.query<{ n: string }>(
      `SELECT count(*) AS n FROM "ApprovalTicket" WHERE "hostId" = $1 AND status = 'expired'`,
      [c.expiryHost.id],
    );
    if (Number(r.rows[0].n) >= n || Date.now() > until) break;
    await sleep(250);
  }
  const answers = await Promise.race([Promise.all(polled), sleep(10_000).then(() => null)]);
  const rows = await c.sql.query<{ id: string; e: Date; d: Date | null }>(
    `SELECT id, "expiresAt" AS e, "decidedAt" AS d FROM "ApprovalTicket" WHERE "hostId" = $1`,
    [c.expiryHost.id],
  );
  const sampled = new Set(sample.map((t) => t.id));
  const expires = new Map(rows.rows.map((r) => [r.id, r.e.getTime()]));
  const late: number[] = [];
  const lateUnpolled: number[] = [];
  let notExpired = 0;
  for (const r of rows.rows) {
    if (!r.d) {
      notExpired++;
      continue;
    }
    const ms = r.d.getTime() - r.e.getTime();
    late.push(ms);
    if (!sampled.has(r.id)) lateUnpolled.push(ms);
  }
  const answerLate = (answers ?? []).map((a, i) => a.wallAt - (expires.get(sample[i].id) ?? 0));
  const spread = rows.rows.map((r) => r.e.getTime());
  return {
    tickets: n,
    deadline_spread_ms: spread.length ? Math.max(...spread) - Math.min(...spread) : 0,
    not_expired_after_60s: notExpired,
    // A parked long-poll expires its own ticket at the deadline (awaitTicket),
    // so the tickets nobody waits on show what the expiry machinery does alone.
    decided_late_ms: summary(late),
    decided_late_unpolled_ms: summary(lateUnpolled),
    poll_sample: sampleSize,
    answer_late_ms: answers ? summary(answerLate) : 'long-polls did not all answer',
  };
}

async function approveAll(c: Cluster, tickets: Ticket[], concurrency: number) {
  const at = new Map<string, number>();
  await pool(tickets, concurrency, async (t, i) => {
    await approveViaSlack(c.apps[i % 2].base, c.reviewer, t);
    at.set(t.id, performance.now());
  });
  return at;
}

/** Approves the fast host's `tickets` one every 50 ms; decision → callback arrival, ms. */
async function pacedFastDecisions(c: Cluster, tickets: Ticket[]): Promise<number[]> {
  const latencies: number[] = [];
  const waits: Promise<void>[] = [];
  for (let i = 0; i < tickets.length; i++) {
    const t = tickets[i];
    await approveViaSlack(c.apps[i % 2].base, c.reviewer, t);
    const decided = performance.now();
    waits.push(
      c.fast.arrival(t.id).then((at) => {
        latencies.push(at - decided);
      }),
    );
    await sleep(50);
  }
  await Promise.race([Promise.all(waits), sleep(120_000)]);
  return latencies;
}

/** 20 paced fast-host callbacks (e.g. right after the expiry storm); their ids join (d)'s tally. */
export async function fastProbe(c: Cluster) {
  const tickets = await createMany(c, c.fastHost, 20);
  const latencies = await pacedFastDecisions(c, tickets);
  return { decision_to_callback_ms: summary(latencies), ids: tickets.map((t) => t.id) };
}

/** Outbox rows by kind and whether settled (what the storm left for the worker). */
export async function outboxByKind(c: Cluster): Promise<Record<string, number>> {
  const r = await c.sql.query<{ k: string; n: string }>(
    `SELECT kind || CASE WHEN "settledAt" IS NULL THEN ' (unsettled)' ELSE '' END AS k,
            count(*) AS n FROM "OutboxEvent" GROUP BY 1 ORDER BY 1`,
  );
  return Object.fromEntries(r.rows.map((row) => [row.k, Number(row.n)]));
}

/** Waits until every ticket has an acknowledged callback, or `ms` passed. */
async function settle(receiver: CallbackReceiver, ids: string[], ms: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    if (receiver.missing(ids).length === 0 && receiver.inFlight === 0) break;
    await sleep(250);
  }
  return round((performance.now() - t0) / 1000);
}

/**
 * (d) the slow host's receiver answers after 4.5 s; `slowCount` of its
 * callbacks are queued first, then the fast host's `n` decisions, one
 * every 50 ms: how late the fast host's callbacks are while the slow host
 * holds delivery slots.
 */
export async function callbacks(c: Cluster, n: number, slowCount: number, log: Log) {
  log(`(d) ${slowCount} slow-host and ${n} fast-host tickets…`);
  const slowTickets = await createMany(c, c.slowHost, slowCount);
  const alone = await createMany(c, c.fastHost, Math.min(20, n));
  const fastTickets = await createMany(c, c.fastHost, n);
  const paced = (tickets: Ticket[]) => pacedFastDecisions(c, tickets);
  // The same pace with the slow host idle: what "delayed" is measured against.
  const aloneLatencies = await paced(alone);
  await approveAll(c, slowTickets, 8);
  log('(d) slow host busy; deciding the fast host’s tickets…');
  const latencies = await paced(fastTickets);
  const slowIds = slowTickets.map((t) => t.id);
  const settleS = await settle(c.slow, slowIds, 120_000);
  return {
    fast: {
      decisions: n,
      decision_to_callback_ms: summary(latencies),
      slow_host_idle_ms: summary(aloneLatencies),
    },
    slow: { decisions: slowCount, receiver_delay_ms: 4_500, settled_after_s: settleS },
    fastIds: [...alone, ...fastTickets].map((t) => t.id),
    slowIds,
  };
}

/**
 * (e) a burst of `n` fast-host decisions: a third in, the worker is killed
 * (SIGKILL) and a new one started; two thirds in, the Redis database is
 * flushed. Then everything settles (the reconciler re-dispatches what Redis
 * lost).
 */
export async function faults(c: Cluster, n: number, log: Log) {
  log(`(e) ${n} tickets for the fault burst…`);
  const tickets = await createMany(c, c.fastHost, n);
  const killAt = Math.floor(n / 3);
  const flushAt = Math.floor((2 * n) / 3);
  const events: string[] = [];
  const t0 = performance.now();
  const at = (t = performance.now()) => `${round((t - t0) / 1000)} s`;
  const repeatsBefore = c.fast.repeats.length;
  let restarted: Promise<unknown> = Promise.resolve();
  await pool(tickets, 4, async (t, i) => {
    if (i === killAt) {
      events.push(`${at()}: kill -9 ${c.worker.name} (pid ${c.worker.pid}) after ${i} decisions`);
      await c.worker.kill('SIGKILL');
      restarted = c.startWorker().then((w) => {
        c.worker = w;
        events.push(`${at()}: ${w.name} started`);
      });
    }
    if (i === flushAt) {
      await flushRedisDb(c.redis);
      events.push(`${at()}: FLUSHDB after ${i} decisions`);
    }
    await approveViaSlack(c.apps[i % 2].base, c.reviewer, t);
    await sleep(10);
  });
  await restarted;
  log('(e) burst done; waiting for the callbacks to settle…');
  const ids = tickets.map((t) => t.id);
  const settleS = await settle(c.fast, ids, 180_000);
  await sleep(5_000);
  // Each repeat after an acknowledgement, on the burst's clock, with what the
  // app recorded for that delivery.
  const repeats = [];
  for (const r of c.fast.repeats.slice(repeatsBefore)) {
    const row = await c.sql.query<{ status: string; attempts: number }>(
      'SELECT status::text AS status, attempts FROM "WebhookDelivery" WHERE "messageId" = $1',
      [r.messageId],
    );
    repeats.push({
      ticket: r.ticketId,
      first: at(r.firstAt),
      repeat: at(r.at),
      delivery_row: row.rows[0] ?? null,
    });
  }
  return { decisions: n, events, settled_after_s: settleS, ids, repeats };
}

/**
 * Waits until no approvals/webhooks outbox row that is due or handed to
 * Redis is unsettled (the follow-up work of earlier scenarios is done);
 * returns the seconds it took. A dispatched row's availableAt is its lease,
 * in the future, so "due" alone would miss the work in the queue.
 */
export async function drain(c: Cluster, ms: number): Promise<number | null> {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const r = await c.sql.query<{ n: string }>(
      `SELECT count(*) AS n FROM "OutboxEvent"
        WHERE "settledAt" IS NULL
          AND ("availableAt" <= now() OR "dispatchedAt" IS NOT NULL)
          AND (kind LIKE 'approvals.%' OR kind LIKE 'webhooks.%')`,
    );
    if (Number(r.rows[0].n) === 0) return round((performance.now() - t0) / 1000);
    await sleep(500);
  }
  return null;
}

/** Delivery rows by status for the hosts with webhooks (what the app believes). */
export async function deliveryStates(c: Cluster): Promise<Record<string, number>> {
  const r = await c.sql.query<{ status: string; n: string }>(
    'SELECT status::text AS status, count(*) AS n FROM "WebhookDelivery" GROUP BY status',
  );
  return Object.fromEntries(r.rows.map((row) => [row.status, Number(row.n)]));
}
