// `npm run bench:approvals [-- --json] [-- --tickets N --queue N --concurrency C]
//   [--parked 1000,5000 --burst 1000 --only-parked]`
//
// Starts the production server (`next start` from the build in
// NEXT_DIST_DIR, building it first if missing) on a scratch PostgreSQL
// database, then measures:
// 1. the approval round trip, 1000 times: POST /api/v1/approvals → a
//    reviewer's decision (decideTicket, in this process: a second app
//    instance, so the decision reaches the server's long-poll through Redis
//    pub/sub) → the long-poll GET ?wait=30 answers 200. p50/p99 sequentially,
//    throughput with C concurrent hosts;
// 2. parked long-polls (bench/approvals-parked.ts), 1,000 then 5,000: the
//    server's CPU %, resident memory per parked request and the database's
//    transactions/s while they wait, then decision → answer under a burst
//    of 1,000 decisions;
// 3. the queue page: GET /approvals as a signed-in reviewer with 10,000
//    pending tickets (server-rendered, paginated).
// The load average is printed with the figures (they move with it).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parkedPolls } from './approvals-parked';
import { benchLogger, pct, round, withScratchDatabase } from './support';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    tickets: { type: 'string', default: '1000' },
    queue: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '8' },
    port: { type: 'string', default: '3917' },
    parked: { type: 'string', default: '1000,5000' },
    burst: { type: 'string', default: '1000' },
    'only-parked': { type: 'boolean', default: false },
  },
});
const JSON_ONLY = values.json;
const TICKETS = Number(values.tickets);
const QUEUE = Number(values.queue);
const CONCURRENCY = Number(values.concurrency);
const PORT = Number(values.port);
const PARKED = values.parked
  .split(',')
  .filter(Boolean)
  .map((v) => Number(v));
const BURST = Number(values.burst);
const ONLY_PARKED = values['only-parked'];
/** Issue 16 item 5, at 5,000 parked. */
const PARKED_TARGETS = {
  parked_cpu_percent: 5,
  parked_db_transactions_per_s: 10,
  burst_decision_to_answer_p95_ms: 100,
};
const BASE = `http://127.0.0.1:${PORT}`;
const root = path.resolve(import.meta.dirname, '..');
const distDir = process.env.NEXT_DIST_DIR || '.next';
const log = benchLogger(JSON_ONLY);

function main() {
  return withScratchDatabase('ck_bench', async (dbUrl) => {
    // Everything below reads configuration from here (lib/server/config.ts).
    process.env.DATABASE_URL = dbUrl;
    process.env.AUTH_SECRET ??= randomBytes(32).toString('hex');
    // Required with DATABASE_URL, like AUTH_SECRET (lib/server/auth/secret.ts).
    process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString('hex');
    process.env.LOG_LEVEL = 'warn';
    // The server's relay hands the tickets' jobs (fan-out, expiries) to
    // Redis: under a prefix of the bench's own, not the shared Redis's real
    // queues, where they were left behind (issue 16: a 1,955-job backlog).
    process.env.QUEUE_PREFIX = `ckbench-${randomBytes(4).toString('hex')}`;
    const server = { proc: undefined as ReturnType<typeof spawn> | undefined };
    try {
      return await run(dbUrl, server);
    } finally {
      server.proc?.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      const { stopApprovalsRuntime } = await import('../lib/server/approvals/runtime');
      const { closeDb } = await import('../lib/server/db');
      const { appQueueTarget } = await import('../lib/server/queue/producer');
      const { obliterateQueues } = await import('../lib/server/queue/queues');
      await stopApprovalsRuntime();
      await closeDb();
      await obliterateQueues(appQueueTarget()).catch((err) =>
        log(`could not remove the bench's queues: ${String(err)}`),
      );
    }
  });
}

async function run(databaseUrl: string, server: { proc?: ReturnType<typeof spawn> }) {
  const { migrateTarget } = await import('../lib/server/db/migrate-target');
  await migrateTarget({ kind: 'postgres', url: databaseUrl });
  const { db } = await import('../lib/server/db');
  const { generateApiKey } = await import('../lib/server/hosts/api-key');
  const { decideTicket } = await import('../lib/server/approvals/decide');
  const { jcsSha256, buildContext } = await import('@checkpoint/agent-hooks');
  const { encode } = await import('next-auth/jwt');
  const prisma = await db();

  const reviewer = await prisma.user.create({
    data: { email: 'bench-reviewer@example.com', roles: ['reviewer'] },
  });
  const host = await prisma.host.create({ data: { name: 'bench' } });
  const key = generateApiKey();
  await prisma.apiKey.create({
    data: { hostId: host.id, name: 'bench', prefix: key.prefix, hash: key.hash },
  });

  if (!existsSync(path.join(root, distDir, 'BUILD_ID'))) {
    log(`no build in ${distDir}: running next build…`);
    const b = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/next/dist/bin/next'), 'build'],
      {
        cwd: root,
        stdio: JSON_ONLY ? 'ignore' : 'inherit',
      },
    );
    if (b.status !== 0) throw new Error('next build failed');
  }
  server.proc = spawn(
    process.execPath,
    [
      path.join(root, 'node_modules/next/dist/bin/next'),
      'start',
      '-p',
      String(PORT),
      '-H',
      '127.0.0.1',
    ],
    {
      cwd: root,
      env: { ...process.env, NEXT_MANUAL_SIG_HANDLE: '1', PORT: String(PORT), RUN_WORKER: 'false' },
      stdio: ['ignore', 'ignore', JSON_ONLY ? 'ignore' : 'inherit'],
    },
  );
  await waitReady();

  let seq = 0;
  const headers = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' };
  const request = () => {
    const ctx = buildContext(
      'pre_tool_call',
      {
        timestamp: new Date().toISOString(),
        sequence: ++seq,
        agent: { id: 'bench-agent', framework: 'bench' },
        session: { id: `bench-${Math.floor(seq / 100)}` },
      },
      {
        tool_call: {
          id: `c${seq}`,
          name: 'wire_transfer',
          args: { to: 'ACME', amount: 20_000 + seq },
        },
      },
    );
    return JSON.stringify({
      context_identity: jcsSha256.compute(ctx),
      interception_point: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'amount_over_threshold', approval: {} },
      context: ctx,
    });
  };

  const phases = { post: [] as number[], decide: [] as number[], answer: [] as number[] };
  /** One host's round trip: request → decision → long-poll answer. */
  async function roundTrip(record = false): Promise<number> {
    const body = request();
    const t0 = performance.now();
    const created = await fetch(`${BASE}/api/v1/approvals`, { method: 'POST', headers, body });
    if (created.status !== 201)
      throw new Error(`POST answered ${created.status}: ${await created.text()}`);
    const ticket = (await created.json()) as { id: string; context_identity: string };
    const t1 = performance.now();
    const answer = fetch(`${BASE}/api/v1/approvals/${ticket.id}?wait=30`, { headers });
    await decideTicket({
      ticketId: ticket.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: ticket.context_identity,
    });
    const t2 = performance.now();
    const res = await answer;
    const resolution = (await res.json()) as { outcome?: string };
    if (res.status !== 200 || resolution.outcome !== 'approve') {
      throw new Error(`long-poll answered ${res.status} ${JSON.stringify(resolution)}`);
    }
    const t3 = performance.now();
    if (record) {
      phases.post.push(t1 - t0);
      phases.decide.push(t2 - t1);
      phases.answer.push(t3 - t2);
    }
    return t3 - t0;
  }

  log('warming up…');
  for (let i = 0; i < 30; i++) await roundTrip();

  const latencies: number[] = [];
  let throughput = 0;
  if (!ONLY_PARKED) {
    log(`${TICKETS} round trips, one at a time…`);
    for (let i = 0; i < TICKETS; i++) latencies.push(await roundTrip(true));
    latencies.sort((a, b) => a - b);

    log(`${TICKETS} round trips, ${CONCURRENCY} hosts at once…`);
    let left = TICKETS;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await roundTrip();
      }),
    );
    throughput = TICKETS / ((performance.now() - started) / 1000);
  }

  const identities = new Map<string, string>();
  /** `count` pending tickets of the bench host, straight into the database. */
  async function seedTickets(count: number, label: string, expiresInMs: number) {
    const now = Date.now();
    const ids: string[] = [];
    for (let start = 0; start < count; start += 1000) {
      const data = Array.from({ length: Math.min(1000, count - start) }, (_, j) => {
        const i = start + j;
        const ctx = buildContext(
          'pre_tool_call',
          {
            timestamp: new Date(now).toISOString(),
            sequence: i,
            agent: { id: `agent-${i % 7}`, framework: 'bench' },
            session: { id: `${label}-${Math.floor(i / 10)}` },
          },
          {
            tool_call: {
              id: `${label}${i}`,
              name: 'wire_transfer',
              args: { to: 'ACME', amount: 10_001 + i },
            },
          },
        );
        const id = randomUUID();
        const contextIdentity = jcsSha256.compute(ctx);
        ids.push(id);
        identities.set(id, contextIdentity);
        return {
          id,
          hostId: host.id,
          contextIdentity,
          identityProvider: 'jcs-sha256',
          interceptionPoint: 'pre_tool_call',
          verdict: { decision: 'deny', reason: 'amount_over_threshold', approval: {} },
          context: ctx as object,
          sessionId: ctx.session.id,
          sequence: i,
          agentId: ctx.agent.id,
          toolName: 'wire_transfer',
          reason: 'amount_over_threshold',
          expiresAt: new Date(now + expiresInMs + i * 1000),
        };
      });
      await prisma.approvalTicket.createMany({ data });
    }
    return ids;
  }

  const parked = [];
  for (const n of PARKED) {
    parked.push(
      await parkedPolls(
        {
          base: BASE,
          headers,
          serverPid: server.proc?.pid as number,
          databaseName: new URL(databaseUrl).pathname.slice(1),
          seed: (count) => seedTickets(count, `parked${n}-`, 3_600_000),
          decide: async (id) => {
            await decideTicket({
              ticketId: id,
              actor: { kind: 'human', userId: reviewer.id },
              outcome: 'approve',
              contextIdentity: identities.get(id) as string,
            });
          },
          decidedAt: async (ids) => {
            const rows = await prisma.approvalTicket.findMany({
              where: { id: { in: ids } },
              select: { id: true, decidedAt: true },
            });
            return new Map(
              rows.flatMap((r) => (r.decidedAt ? [[r.id, r.decidedAt.getTime()] as const] : [])),
            );
          },
          burst: BURST,
          log,
        },
        n,
      ),
    );
  }

  if (ONLY_PARKED) {
    return {
      only_parked: true as const,
      parked,
      load_average: loadavg().map(round),
      targets: PARKED_TARGETS,
    };
  }

  // The parked rounds' undecided tickets: not part of the queue measured below.
  await prisma.approvalTicket.deleteMany({ where: { status: 'pending' } });
  log(`seeding ${QUEUE} pending tickets…`);
  await seedTickets(QUEUE, 'queue', 3_600_000);
  const pendingCount = await prisma.approvalTicket.count({ where: { status: 'pending' } });

  const cookieName = 'authjs.session-token';
  const jwt = await encode({
    token: { sub: reviewer.id, email: reviewer.email, name: null },
    secret: process.env.AUTH_SECRET as string,
    salt: cookieName,
  });
  const page = async () => {
    const t0 = performance.now();
    const res = await fetch(`${BASE}/approvals`, {
      headers: { cookie: `${cookieName}=${jwt}` },
      redirect: 'manual',
    });
    const html = await res.text();
    if (res.status !== 200) throw new Error(`/approvals answered ${res.status}`);
    return { ms: performance.now() - t0, bytes: html.length, html };
  };
  for (let i = 0; i < 3; i++) await page();
  const pageTimes: number[] = [];
  let last = { bytes: 0, html: '' };
  for (let i = 0; i < 15; i++) {
    const p = await page();
    pageTimes.push(p.ms);
    last = p;
  }
  pageTimes.sort((a, b) => a - b);

  return {
    only_parked: false as const,
    tickets: TICKETS,
    round_trip_ms: {
      p50: round(pct(latencies, 50)),
      p99: round(pct(latencies, 99)),
      max: round(latencies.at(-1) ?? 0),
    },
    // Where the sequential round trip's time goes (p50 of each step).
    phases_p50_ms: Object.fromEntries(
      Object.entries(phases).map(([k, v]) => [
        k,
        round(
          pct(
            v.sort((a, b) => a - b),
            50,
          ),
        ),
      ]),
    ),
    throughput_per_s: round(throughput),
    concurrency: CONCURRENCY,
    queue_page: {
      pending_tickets: pendingCount,
      p50_ms: round(pct(pageTimes, 50)),
      max_ms: round(pageTimes.at(-1) ?? 0),
      html_bytes: last.bytes,
      shows_count:
        last.html.includes(pendingCount.toLocaleString('en-US')) ||
        last.html.includes(String(pendingCount)),
    },
    parked,
    load_average: loadavg().map(round),
    targets: {
      round_trip_p50_ms: 20,
      round_trip_p99_ms: 100,
      queue_page_ms: 300,
      ...PARKED_TARGETS,
    },
  };
}

async function waitReady(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      const res = await fetch(`${BASE}/api/ready`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server did not become ready');
}

type Parked = Awaited<ReturnType<typeof parkedPolls>>;

function printParked(parked: Parked[]): void {
  for (const p of parked) {
    const b = p.burst;
    console.log(
      `${p.parked} parked long-polls (idle ${p.idle_window_s} s): CPU ${p.cpu_percent} % ` +
        `(${p.cpu_percent_without_polls} % with none)   ${p.db_transactions_per_s} DB transactions/s ` +
        `(${p.db_transactions_per_s_without_polls} with none)   ` +
        `RSS ${p.rss_mib_before} → ${p.rss_mib_parked} MiB (${p.rss_kib_per_parked} KiB per parked)`,
    );
    console.log(
      `  open requests at the window's start/end ${p.open_requests.join('/')}; parked after ${p.parked_after_ms} ms; errors ${JSON.stringify(p.request_errors)}`,
    );
    console.log(
      `  burst of ${b.decisions} decisions (${b.decide_seconds} s): decision → answer ` +
        `p50 ${b.decision_to_answer_ms.p50} ms   p95 ${b.decision_to_answer_ms.p95} ms   ` +
        `max ${b.decision_to_answer_ms.max} ms   unanswered ${b.unanswered} ${JSON.stringify(b.unanswered_why)}`,
    );
  }
  console.log(
    `  (aim at 5,000: CPU ≤ ${PARKED_TARGETS.parked_cpu_percent} %, ≤ ${PARKED_TARGETS.parked_db_transactions_per_s} transactions/s, burst p95 ≤ ${PARKED_TARGETS.burst_decision_to_answer_p95_ms} ms)`,
  );
}

main().then(
  (result) => {
    if (JSON_ONLY) {
      console.log(JSON.stringify(result));
    } else if (result.only_parked) {
      printParked(result.parked);
      console.log(`load average ${result.load_average.join(' ')}`);
    } else {
      const r = result;
      console.log(
        `approval round trip (request → decision → long-poll answer), ${r.tickets} tickets:`,
      );
      console.log(
        `  p50 ${r.round_trip_ms.p50} ms   p99 ${r.round_trip_ms.p99} ms   max ${r.round_trip_ms.max} ms   (aim: p50 ≤ 20, p99 ≤ 100)`,
      );
      console.log(`  p50 per step: ${JSON.stringify(r.phases_p50_ms)}`);
      console.log(
        `  throughput ${r.throughput_per_s} round trips/s with ${r.concurrency} concurrent hosts`,
      );
      console.log(
        `queue page GET /approvals with ${r.queue_page.pending_tickets} pending tickets:`,
      );
      console.log(
        `  p50 ${r.queue_page.p50_ms} ms   max ${r.queue_page.max_ms} ms   (${r.queue_page.html_bytes} bytes; must be ≤ 300 ms)`,
      );
      printParked(r.parked);
      console.log(`load average ${r.load_average.join(' ')}`);
    }
    process.exit(0);
  },
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
