import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Prisma } from '@/lib/generated/prisma/client';
import { JobQueue } from '@/lib/server/queue/queues';
import { OutboxRelay } from '@/lib/server/queue/relay';
import { startJobWorker } from '@/lib/server/queue/worker';
import { enqueueTicketFanout } from '@/lib/server/jobs/producers';
import { testDb } from './helpers/db';
import { obliterateTarget, testQueueTarget } from './helpers/queue';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Responder = (
  r: Received,
  n: number,
) => { status: number; body?: string; delayMs?: number };

/** A local webhook receiver on loopback that records every request. */
export class Receiver {
  readonly received: Received[] = [];
  private server?: Server;
  url = '';
  constructor(public respond: Responder = () => ({ status: 200, body: 'ok' })) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = {
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.received.push(r);
        const answer = this.respond(r, this.received.length);
        const send = () => {
          if (!res.writableEnded) res.writeHead(answer.status).end(answer.body ?? '');
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

export async function makeHost(name: string): Promise<string> {
  const prisma = await testDb();
  const h = await prisma.host.create({ data: { name }, select: { id: true } });
  return h.id;
}

let seq = 0;

/**
 * A decided ticket and its `approvals.resolved` outbox row in one
 * transaction: what the approval decision transaction does once wired.
 */
export async function decidedTicket(
  hostId: string,
  opts: { status?: 'approved' | 'rejected' | 'expired'; requestId?: string } = {},
): Promise<string> {
  const prisma = await testDb();
  const status = opts.status ?? 'approved';
  const identity = `sha256:${(++seq).toString(16).padStart(64, '0')}`;
  const resolution =
    status === 'approved'
      ? { outcome: 'approve', context_identity: identity, verdict: { decision: 'allow' } }
      : status === 'rejected'
        ? {
            outcome: 'reject',
            context_identity: identity,
            verdict: { decision: 'deny', reason: 'approval_rejected', message: 'no' },
          }
        : { outcome: 'unresolved', context_identity: identity };
  return prisma.$transaction(async (tx) => {
    const t = await tx.approvalTicket.create({
      data: {
        hostId,
        contextIdentity: identity,
        interceptionPoint: 'pre_tool_call',
        verdict: { decision: 'deny', reason: 'review', approval: {} },
        context: { target: { name: 'wire_transfer' } },
        sessionId: `s-${seq}`,
        agentId: 'billing-bot',
        status,
        expiresAt: new Date(Date.now() + 3_600_000),
        decidedAt: new Date(),
        requestId: opts.requestId ?? null,
        resolution: resolution as Prisma.InputJsonObject,
      },
      select: { id: true },
    });
    await enqueueTicketFanout(tx, 'approvals.resolved', t.id);
    return t.id;
  });
}

/** Relay + worker on the run's test queue; `stop()` removes everything. */
export async function startPipeline(redisUrl?: string) {
  const db = await testDb();
  const target = testQueueTarget(redisUrl);
  const queue = new JobQueue(target);
  const relay = new OutboxRelay({ db, queue, intervalMs: 50, addTimeoutMs: 300 });
  const worker = startJobWorker({ target, db, heartbeatMs: 0, concurrency: 8 });
  relay.start();
  return {
    target,
    queue,
    relay,
    async stop() {
      await relay.stop();
      await worker.close();
      await queue.close();
      if (!redisUrl) await obliterateTarget(target);
    },
  };
}
