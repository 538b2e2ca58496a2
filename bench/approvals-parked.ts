// Parked long-polls for bench/approvals.ts (issue 16 item 5): N hosts each
// hold `GET /api/v1/approvals/{id}?wait=30` open on the server while nothing
// happens, then a burst of decisions (made in the bench process, a second
// app instance: they reach the server through Redis pub/sub) answers some.
// Measured on the server process (and its children): CPU %, resident memory
// per parked request, the scratch database's transactions/s (from
// pg_stat_database), and decision commit (`decidedAt`) → answer.
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { pct, round } from './support';

const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const CLK_TCK = 100;
/**
 * PostgreSQL flushes an idle backend's counters in pg_stat_database only
 * after 10 s: a window opened sooner counts the parking's own transactions
 * (reported as 46-108 transactions/s "idle" in this bench's first runs).
 */
const STATS_SETTLE_MS = 10_500;

export interface ParkedOptions {
  base: string;
  headers: Record<string, string>;
  serverPid: number;
  databaseName: string;
  /** Creates `n` pending tickets (straight into the database) and returns their ids. */
  seed: (n: number) => Promise<string[]>;
  /** Approves ticket `id` as a reviewer in this process. */
  decide: (id: string) => Promise<void>;
  /** Each ticket's `decidedAt` (epoch ms). */
  decidedAt: (ids: string[]) => Promise<Map<string, number>>;
  burst: number;
  log: (...a: unknown[]) => void;
}

/** CPU seconds (user + system) of a process and its descendants. */
function cpuSeconds(pid: number): number {
  let ticks = 0;
  const visit = (p: number) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): utime is 14th, stime 15th.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
      for (const c of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').split(/\s+/)) {
        if (c) visit(Number(c));
      }
    } catch {
      // gone
    }
  };
  visit(pid);
  return ticks / CLK_TCK;
}

/** Resident memory of a process and its descendants, KiB. */
function rssKiB(pid: number): number {
  let kib = 0;
  const visit = (p: number) => {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      for (const c of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').split(/\s+/)) {
        if (c) visit(Number(c));
      }
    } catch {
      // gone
    }
  };
  visit(pid);
  return kib;
}

async function xacts(databaseName: string): Promise<number> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
      [databaseName],
    );
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pool<T>(items: T[], width: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

type Answer = { at: number; status: number; outcome?: string; repolls: number };

/** Requests sent and not answered yet, and why the failed ones failed. */
const inFlight = { n: 0, sent: 0, errors: new Map<string, number>() };

/** A host's long-poll: asks again on 202 (the wait's end) until answered or aborted. */
async function longPoll(o: ParkedOptions, id: string, signal: AbortSignal): Promise<Answer> {
  let repolls = 0;
  for (;;) {
    inFlight.n++;
    inFlight.sent++;
    try {
      const res = await fetch(`${o.base}/api/v1/approvals/${id}?wait=30`, {
        headers: o.headers,
        signal,
      });
      const body = (await res.json()) as { outcome?: string };
      if (res.status !== 202) {
        return { at: Date.now(), status: res.status, outcome: body.outcome, repolls };
      }
    } catch (err) {
      if (!signal.aborted) {
        const why = String((err as { cause?: unknown }).cause ?? err).slice(0, 80);
        inFlight.errors.set(why, (inFlight.errors.get(why) ?? 0) + 1);
      }
      throw err;
    } finally {
      inFlight.n--;
    }
    repolls++;
  }
}

/** The server's CPU % and the database's transactions/s over `ms`. */
async function idleWindow(o: ParkedOptions, ms: number) {
  const x0 = await xacts(o.databaseName);
  const c0 = cpuSeconds(o.serverPid);
  const t0 = performance.now();
  await sleep(ms);
  const seconds = (performance.now() - t0) / 1000;
  const cpuPercent = round(((cpuSeconds(o.serverPid) - c0) / seconds) * 100);
  const xactPerS = round(((await xacts(o.databaseName)) - x0) / seconds);
  return { seconds: round(seconds), cpuPercent, xactPerS };
}

/**
 * Parks `n` long-polls, measures the idle server, then decides `burst` of
 * the tickets at once (16 in flight) and times each answer.
 */
export async function parkedPolls(o: ParkedOptions, n: number) {
  const ids = await o.seed(n);
  // The same window with nothing parked: the server's own background work
  // (outbox relay, schedulers). After STATS_SETTLE_MS, so that the previous
  // phase's transactions are counted before it.
  await sleep(STATS_SETTLE_MS);
  const base = await idleWindow(o, 7_000);
  const rssBefore = rssKiB(o.serverPid);
  const abort = new AbortController();
  // One signal for all the polls: thousands of listeners, on purpose.
  setMaxListeners(0, abort.signal);
  inFlight.errors.clear();
  o.log(`parking ${n} long-polls…`);
  const firedAt = performance.now();
  const cpuAtFire = cpuSeconds(o.serverPid);
  // 100 every 200 ms: faster overflows the server's accept backlog on a busy machine.
  const answers: Promise<Answer>[] = [];
  for (let i = 0; i < ids.length; i += 100) {
    for (const id of ids.slice(i, i + 100)) {
      const a = longPoll(o, id, abort.signal);
      a.catch(() => {});
      answers.push(a);
    }
    await sleep(200);
  }
  // Parked once the server has nothing left to do: two quiet half-seconds.
  let quiet = 0;
  while (quiet < 2 && performance.now() - firedAt < 15_000) {
    const c0 = cpuSeconds(o.serverPid);
    await sleep(500);
    quiet = (cpuSeconds(o.serverPid) - c0) / 0.5 < 0.1 ? quiet + 1 : 0;
  }
  const parkedAfterMs = performance.now() - firedAt;
  // What each poll cost the server to take in (auth, the entry read): what a
  // host asking again at the end of every 30 s wait costs.
  const cpuMsPerPoll = ((cpuSeconds(o.serverPid) - cpuAtFire) * 1000) / n;
  await sleep(STATS_SETTLE_MS);
  // The window ends a second before the first polls' 30 s wait does.
  const windowMs = Math.max(2_000, Math.min(10_000, 29_000 - (performance.now() - firedAt)));
  const parkedAtStart = inFlight.n;
  const sentBefore = inFlight.sent;
  const idle = await idleWindow(o, windowMs);
  const sentInWindow = inFlight.sent - sentBefore;
  const rssParked = rssKiB(o.serverPid);
  const parkedAtEnd = inFlight.n;

  const burst = ids.slice(0, Math.min(o.burst, n));
  o.log(`deciding ${burst.length} of them at once…`);
  const b0 = performance.now();
  // The answers are timed in this process, which also makes the decisions:
  // its own event-loop delay is part of every figure below.
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  await pool(burst, 16, (id) => o.decide(id));
  const decideSeconds = (performance.now() - b0) / 1000;
  const settled = await Promise.race([
    Promise.allSettled(answers.slice(0, burst.length)),
    sleep(60_000).then(() => null),
  ]);
  lag.disable();
  abort.abort();
  await Promise.allSettled(answers);
  const committed = await o.decidedAt(burst);
  const latencies: number[] = [];
  const why = new Map<string, number>();
  let unanswered = 0;
  let repolls = 0;
  burst.forEach((id, i) => {
    const r = settled?.[i];
    const at = committed.get(id);
    if (r?.status !== 'fulfilled' || r.value.outcome !== 'approve' || at === undefined) {
      const reason =
        r?.status === 'rejected'
          ? String(r.reason).slice(0, 60)
          : r
            ? `${r.value.status} ${r.value.outcome}`
            : 'no answer in 60 s';
      why.set(reason, (why.get(reason) ?? 0) + 1);
      unanswered++;
      return;
    }
    repolls += r.value.repolls;
    latencies.push(r.value.at - at);
  });
  latencies.sort((a, b) => a - b);
  // Let the aborted requests' waiters go before the next round.
  await sleep(2_000);
  return {
    parked: n,
    // Requests open at the window's start and end: n unless some failed or ended.
    open_requests: [parkedAtStart, parkedAtEnd],
    request_errors: Object.fromEntries(inFlight.errors),
    // Requests sent during the idle window: 0 unless a poll came back early.
    requests_in_window: sentInWindow,
    parked_after_ms: Math.round(parkedAfterMs),
    server_cpu_ms_per_poll_taken_in: round(cpuMsPerPoll),
    idle_window_s: idle.seconds,
    cpu_percent: idle.cpuPercent,
    db_transactions_per_s: idle.xactPerS,
    // The same measures with nothing parked (the server's background work).
    cpu_percent_without_polls: base.cpuPercent,
    db_transactions_per_s_without_polls: base.xactPerS,
    rss_mib_before: round(rssBefore / 1024),
    rss_mib_parked: round(rssParked / 1024),
    rss_kib_per_parked: round((rssParked - rssBefore) / Math.max(1, parkedAtEnd)),
    burst: {
      decisions: burst.length,
      decide_seconds: round(decideSeconds),
      decision_to_answer_ms: {
        p50: latencies.length ? round(pct(latencies, 50)) : null,
        p95: latencies.length ? round(pct(latencies, 95)) : null,
        max: latencies.length ? round(latencies.at(-1) as number) : null,
      },
      bench_event_loop_delay_p99_ms: round(lag.percentile(99) / 1e6),
      unanswered,
      unanswered_why: Object.fromEntries(why),
      repolls,
    },
  };
}
