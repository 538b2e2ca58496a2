// `npm run bench:expiry [-- --json] [-- --tickets N --processes P --ahead MS]`
//
// Issue 17 item 7: how late do tickets expire when many fall due at once?
// On a scratch PostgreSQL database, starts P scheduler processes (each what
// an app instance or the worker runs: lib/server/approvals/expiry-scheduler.ts),
// creates N pending tickets with the same deadline MS ahead and announces
// them as intake does (a `created` event with the deadline, through Redis),
// then waits until all are expired. No relay or worker runs: the scheduler
// alone. Reports lateness p50/p99/max of `decidedAt − expiresAt` (database
// clock of the commit) and of the `expired` event reaching another
// instance (this process, through Redis pub/sub). Goal: p99 ≤ 1 s.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { benchLogger, pct, round, withScratchDatabase } from './support';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    tickets: { type: 'string', default: '2000' },
    processes: { type: 'string', default: '1' },
    ahead: { type: 'string', default: '3000' },
    child: { type: 'boolean', default: false },
    channel: { type: 'string', default: '' },
  },
});
const log = benchLogger(values.json);

/** A scheduler process: starts, says `ready`, runs until SIGTERM. */
async function child(): Promise<void> {
  const { configureTicketEvents, closeTicketEvents } = await import(
    '../lib/server/approvals/events'
  );
  const { startExpiryScheduler } = await import('../lib/server/approvals/expiry-scheduler');
  const { closeDb, db } = await import('../lib/server/db');
  await configureTicketEvents({ channel: values.channel });
  await db();
  const scheduler = startExpiryScheduler();
  const keepAlive = setInterval(() => {}, 60_000);
  process.on('SIGTERM', async () => {
    clearInterval(keepAlive);
    await scheduler.stop();
    await closeTicketEvents();
    await closeDb();
    process.exit(0);
  });
  process.stdout.write('ready\n');
}

function startChild(channel: string): Promise<ChildProcess> {
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=react-server',
      import.meta.filename,
      '--child',
      '--channel',
      channel,
    ],
    { env: process.env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`scheduler process exited (${code})`)));
    proc.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(proc);
    });
  });
}

async function main() {
  const tickets = Number(values.tickets);
  const processes = Number(values.processes);
  const ahead = Number(values.ahead);
  return withScratchDatabase('ck_bench_expiry', async (url) => {
    process.env.DATABASE_URL = url;
    process.env.AUTH_SECRET ??= randomBytes(32).toString('hex');
    process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString('hex');
    process.env.LOG_LEVEL = 'warn';
    const { migrateTarget } = await import('../lib/server/db/migrate-target');
    await migrateTarget({ kind: 'postgres', url });
    const { db, closeDb } = await import('../lib/server/db');
    const events = await import('../lib/server/approvals/events');
    const channel = `checkpoint:bench-expiry:${randomUUID()}`;
    await events.configureTicketEvents({ channel, instanceId: 'bench' });
    events.connectTicketEventPublisher();
    const prisma = await db();
    const host = await prisma.host.create({ data: { name: 'bench' } });

    const seen = new Map<string, number>();
    const off = events.onTicketEvent((e) => {
      if (e.type === 'expired' && !seen.has(e.ticketId)) seen.set(e.ticketId, Date.now());
    });
    const children: ChildProcess[] = [];
    try {
      for (let i = 0; i < processes; i++) children.push(await startChild(channel));
      // The subscriber must be live before the first expiry, or events are missed.
      for (let i = 0; i < 200 && !events.ticketEventsLive(); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      log(
        `${processes} scheduler process(es) ready; creating ${tickets} tickets due in ${ahead} ms`,
      );
      // Inserted with a far deadline, then all moved to the same one in one statement:
      // inserting must not eat into `ahead` on a loaded machine.
      const far = new Date(Date.now() + 3_600_000);
      const ids = Array.from({ length: tickets }, () => randomUUID());
      for (let i = 0; i < ids.length; i += 500) {
        await prisma.approvalTicket.createMany({
          data: ids.slice(i, i + 500).map((id, k) => ({
            id,
            hostId: host.id,
            contextIdentity: `bench-${i + k}`,
            interceptionPoint: 'pre_tool_call',
            verdict: { decision: 'deny', reason: 'bench', approval: {} },
            context: { bench: true },
            sessionId: 'bench',
            agentId: 'bench',
            expiresAt: far,
          })),
        });
      }
      const expiresAt = new Date(Date.now() + ahead);
      await prisma.approvalTicket.updateMany({ where: { hostId: host.id }, data: { expiresAt } });
      for (const id of ids) {
        events.publishTicketEvent({
          type: 'created',
          ticketId: id,
          hostId: host.id,
          expiresAt: expiresAt.toISOString(),
        });
      }
      const limit = expiresAt.getTime() + 30_000;
      while (seen.size < tickets && Date.now() < limit) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const rows = await prisma.approvalTicket.findMany({
        where: { hostId: host.id },
        select: { status: true, decidedAt: true, expiresAt: true },
      });
      const expired = rows.filter((r) => r.status === 'expired' && r.decidedAt);
      const commit = expired
        .map((r) => (r.decidedAt as Date).getTime() - r.expiresAt.getTime())
        .sort((a, b) => a - b);
      const event = [...seen.values()].map((t) => t - expiresAt.getTime()).sort((a, b) => a - b);
      const stats = (a: number[]) => ({
        p50: round(pct(a, 50)),
        p99: round(pct(a, 99)),
        max: round(a[a.length - 1]),
      });
      return {
        tickets,
        processes,
        expired: expired.length,
        eventsSeen: seen.size,
        commitLatenessMs: stats(commit),
        eventLatenessMs: stats(event),
      };
    } finally {
      off();
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(
        children.map(
          (c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r))),
        ),
      );
      await events.closeTicketEvents();
      await closeDb();
    }
  });
}

if (values.child) {
  child().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    (result) => {
      console.log(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
