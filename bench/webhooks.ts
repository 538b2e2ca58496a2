// `npm run bench:webhooks [-- --json] [-- --decisions N]`
//
// Time from a decision to its callback arriving at a local receiver, over N
// (default 1000) decisions, one at a time: a scratch PostgreSQL database, the
// run's own BullMQ queue on the local Redis, the app's outbox relay and
// worker in this process, a host with a callback webhook pointing at an
// HTTP receiver on loopback that verifies every signature.
//
// A "decision" is decideTicket (a reviewer approves): its one statement
// settles the ticket and writes the `approvals.resolved` outbox row, then
// nudges the relay. The clock starts before decideTicket is called (so the
// decision's own commit is included: an upper bound) and stops when the
// receiver has the request: outbox relay → approvals.resolved job (delivery
// row + outbox row) → relay → webhooks.deliver job → signed POST.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { benchLogger, pct, round, withScratchDatabase } from './support';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    decisions: { type: 'string', default: '1000' },
  },
});
const JSON_ONLY = values.json;
const N = Number(values.decisions);
const log = benchLogger(JSON_ONLY);

function main() {
  return withScratchDatabase('ck_bench_wh', async (dbUrl) => {
    process.env.DATABASE_URL = dbUrl;
    process.env.LOG_LEVEL = 'warn';
    process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
    process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString('hex');
    const closers: Array<() => Promise<void>> = [];
    try {
      return await run(dbUrl, closers);
    } finally {
      for (const c of closers.reverse()) await c().catch(() => {});
    }
  });
}

async function run(databaseUrl: string, closers: Array<() => Promise<void>>) {
  const { migrateTarget } = await import('../lib/server/db/migrate-target');
  await migrateTarget({ kind: 'postgres', url: databaseUrl });
  const { db, closeDb } = await import('../lib/server/db');
  const { config } = await import('../lib/server/config');
  const { JobQueue, obliterateQueues } = await import('../lib/server/queue/queues');
  const { OutboxRelay } = await import('../lib/server/queue/relay');
  const { startJobWorker } = await import('../lib/server/queue/worker');
  const { decideTicket } = await import('../lib/server/approvals/decide');
  const { configureTicketEvents } = await import('../lib/server/approvals/events');
  const { stopApprovalsRuntime } = await import('../lib/server/approvals/runtime');
  const { saveWebhook } = await import('../lib/server/webhooks/webhooks');
  const { verifyWebhook } = await import('../lib/server/webhooks/signing');
  const prisma = await db();
  closers.push(closeDb);
  closers.push(stopApprovalsRuntime);

  const tag = randomBytes(4).toString('hex');
  const target = { redisUrl: config().REDIS_URL, queueName: `bench-wh-${tag}`, prefix: 'ckbench' };
  await configureTicketEvents({ redisUrl: target.redisUrl, channel: `ckbench:${tag}:tickets` });

  // The receiver: resolves the waiter of the ticket in the body.
  const waiters = new Map<string, (at: number) => void>();
  let secret = '';
  let badSignatures = 0;
  let received = 0;
  const seen = new Set<string>();
  let duplicates = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      received++;
      if (!verifyWebhook(secret, req.headers, body).ok) badSignatures++;
      const id = String(req.headers['webhook-id']);
      if (seen.has(id)) duplicates++;
      seen.add(id);
      res.writeHead(204).end();
      const ticketId = JSON.parse(body).data.ticket_id as string;
      waiters.get(ticketId)?.(at);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const port = (server.address() as AddressInfo).port;

  const host = await prisma.host.create({ data: { name: `bench-${tag}` }, select: { id: true } });
  const reviewer = await prisma.user.create({
    data: { email: `bench-${tag}@example.com`, roles: ['reviewer'] },
    select: { id: true },
  });
  const saved = await saveWebhook(
    { hostId: host.id, kind: 'callback', url: `http://127.0.0.1:${port}/hook` },
    null,
  );
  secret = saved.secret as string;

  const queue = new JobQueue(target);
  const relay = new OutboxRelay({ db: prisma, queue });
  const worker = startJobWorker({ target, db: prisma, heartbeatMs: 0, concurrency: 4 });
  relay.start();
  closers.push(async () => {
    await relay.stop();
    await worker.close();
    await queue.close();
    // Every lane's queue and the pre-lane one: all the bench's jobs go.
    await obliterateQueues(target).catch((err) =>
      log(`could not remove the bench's queues: ${String(err)}`),
    );
  });

  log(`creating ${N} pending tickets…`);
  const tickets: Array<{ id: string; identity: string }> = [];
  for (let i = 0; i < N; i++) {
    const identity = `sha256:${randomBytes(32).toString('hex')}`;
    tickets.push({ id: crypto.randomUUID(), identity });
  }
  await prisma.approvalTicket.createMany({
    data: tickets.map((t, i) => ({
      id: t.id,
      hostId: host.id,
      contextIdentity: t.identity,
      interceptionPoint: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'review', approval: {} },
      context: { target: { amount: i } },
      sessionId: `bench-${i}`,
      agentId: 'bench-agent',
      expiresAt: new Date(Date.now() + 3_600_000),
    })),
  });

  // Warm-up: connections, JIT, the first BullMQ round trips.
  const WARM = Math.min(20, Math.floor(N / 10));
  const latencies: number[] = [];
  const decideMs: number[] = [];
  const started = performance.now();
  for (let i = 0; i < tickets.length; i++) {
    const t = tickets[i];
    const arrived = new Promise<number>((resolve) => waiters.set(t.id, resolve));
    const t0 = performance.now();
    await decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.identity,
    });
    const decided = performance.now();
    const at = await Promise.race([
      arrived,
      new Promise<number>((_, reject) =>
        setTimeout(
          () => reject(new Error(`callback for ticket ${i} not received in 30 s`)),
          30_000,
        ),
      ),
    ]);
    waiters.delete(t.id);
    if (i >= WARM) {
      latencies.push(at - t0);
      decideMs.push(decided - t0);
    }
    if (!JSON_ONLY && (i + 1) % 200 === 0) log(`  ${i + 1}/${N}`);
  }
  const totalS = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 300));
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    bench: 'webhooks',
    decisions: N,
    measured: sorted.length,
    warmup: WARM,
    decision_to_callback_ms: {
      p50: round(pct(sorted, 50)),
      p90: round(pct(sorted, 90)),
      p99: round(pct(sorted, 99)),
      max: round(sorted[sorted.length - 1]),
    },
    decide_ms_p50: round(
      pct(
        [...decideMs].sort((a, b) => a - b),
        50,
      ),
    ),
    callbacks_received: received,
    duplicate_webhook_ids: duplicates,
    bad_signatures: badSignatures,
    wall_s: round(totalS),
  };
}

main().then(
  (result) => {
    if (JSON_ONLY) console.log(JSON.stringify(result));
    else console.log(JSON.stringify(result, null, 2));
    process.exit(0);
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
