// A second app instance for approvals-wait-processes.test.ts (run through
// tests/integration/waiter-process.ts): parks awaitTicket waiters as told on
// stdin and reports each answer and its batched-check count on stdout.
import type { Redis } from 'ioredis';
import { createInterface } from 'node:readline';
import {
  configureTicketEvents,
  ensureSubscriber,
  ticketEventsLive,
} from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { awaitTicket } from '@/lib/server/approvals/wait';
import { safetyCheckStatements, waitedTicketCount } from '@/lib/server/approvals/waiters';
import { closeDb } from '@/lib/server/db';

const out = (msg: object) => process.stdout.write(`${JSON.stringify(msg)}\n`);

await configureTicketEvents({
  redisUrl: process.env.WAITER_REDIS_URL,
  channel: process.env.WAITER_CHANNEL,
  instanceId: process.env.WAITER_INSTANCE,
});
ensureSubscriber();
for (let i = 0; i < 200 && !ticketEventsLive(); i++) await new Promise((r) => setTimeout(r, 20));

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line) as { cmd: string; id?: string; hostId?: string; waitMs?: number };
  if (msg.cmd === 'wait') {
    const id = String(msg.id);
    awaitTicket(id, { hostId: msg.hostId, waitMs: msg.waitMs ?? 0 }).then(
      (a) =>
        out({
          id,
          answer: {
            id,
            state: a?.state ?? null,
            outcome: a?.state === 'resolved' ? a.resolution.outcome : undefined,
          },
        }),
      (err) => out({ id, answer: { id, state: null, error: String(err) } }),
    );
  } else if (msg.cmd === 'disconnect') {
    const state = (globalThis as { __checkpointTicketEvents?: { subscriber?: Redis } })
      .__checkpointTicketEvents;
    state?.subscriber?.disconnect();
  } else if (msg.cmd === 'stats') {
    out({
      stats: {
        statements: safetyCheckStatements(),
        waited: waitedTicketCount(),
        live: ticketEventsLive(),
      },
    });
  }
});

process.on('SIGTERM', () => {
  void stopApprovalsRuntime()
    .then(closeDb)
    .finally(() => process.exit(0));
});
out({ ready: true, live: ticketEventsLive() });
