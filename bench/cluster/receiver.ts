// A host's callback receiver on loopback: records every delivery by its
// `webhook-id` header, and whether the receiver acknowledged it (the 2xx
// answer was fully written before the sender went away). Callbacks follow
// Standard Webhooks (docs/webhooks.md): delivery is at least once and the
// `webhook-id` stays the same across every resend of one event, so a
// receiver processes each id once. A *duplicate* is therefore one decision
// under two different ids (a receiver would act twice); the same id sent
// again after an acknowledgement (a worker killed between the receiver's
// 2xx and recording it) is a *redelivery*, reported on its own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Delivery {
  ticketId: string;
  /** performance.now() when the body was complete. */
  firstAt: number;
  received: number;
  acknowledged: number;
  /** Deliveries that arrived after one had been acknowledged. */
  afterAck: number;
}

export class CallbackReceiver {
  readonly byMessage = new Map<string, Delivery>();
  /** First arrival per ticket id. */
  readonly byTicket = new Map<string, { at: number; messageId: string }>();
  /** Deliveries of a webhook-id already acknowledged: when the first and the repeat came. */
  readonly repeats: Array<{ messageId: string; ticketId: string; firstAt: number; at: number }> =
    [];
  private readonly waiters = new Map<string, (at: number) => void>();
  private server?: Server;
  url = '';
  inFlight = 0;

  constructor(
    readonly name: string,
    private readonly delayMs = 0,
  ) {}

  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const id = String(req.headers['webhook-id'] ?? '');
        let ticketId = '';
        try {
          ticketId = String(JSON.parse(Buffer.concat(chunks).toString('utf8'))?.data?.ticket_id);
        } catch {
          // counted under its webhook-id all the same
        }
        let d = this.byMessage.get(id);
        if (!d) {
          d = { ticketId, firstAt: at, received: 0, acknowledged: 0, afterAck: 0 };
          this.byMessage.set(id, d);
        }
        d.received++;
        if (d.acknowledged > 0) {
          d.afterAck++;
          this.repeats.push({ messageId: id, ticketId, firstAt: d.firstAt, at });
        }
        if (!this.byTicket.has(ticketId)) this.byTicket.set(ticketId, { at, messageId: id });
        this.waiters.get(ticketId)?.(at);
        const delivery = d;
        this.inFlight++;
        const answer = () => {
          res.once('finish', () => {
            delivery.acknowledged++;
          });
          res.writeHead(204).end();
        };
        res.once('close', () => {
          this.inFlight--;
        });
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    return this.url;
  }

  /** Resolves with the arrival time of the ticket's first callback. */
  arrival(ticketId: string): Promise<number> {
    const seen = this.byTicket.get(ticketId);
    if (seen) return Promise.resolve(seen.at);
    return new Promise((resolve) => this.waiters.set(ticketId, resolve));
  }

  /** Tickets among `expected` with no acknowledged delivery yet. */
  missing(expected: Iterable<string>): string[] {
    const acked = new Set<string>();
    for (const d of this.byMessage.values()) if (d.acknowledged > 0) acked.add(d.ticketId);
    return [...expected].filter((t) => !acked.has(t));
  }

  /** For the tickets in `scope`: lost, duplicated (two ids for one decision), redelivered (same id after an ack) and raw repeats. */
  tally(scope: Set<string>): {
    expected: number;
    delivered: number;
    lost: number;
    duplicated: number;
    redelivered_after_ack: number;
    raw_repeats: number;
    tickets_with_two_messages: number;
  } {
    let redelivered = 0;
    let repeats = 0;
    const messagesPerTicket = new Map<string, number>();
    for (const d of this.byMessage.values()) {
      if (!scope.has(d.ticketId)) continue;
      redelivered += d.afterAck;
      repeats += d.received - 1;
      if (d.acknowledged > 0) {
        messagesPerTicket.set(d.ticketId, (messagesPerTicket.get(d.ticketId) ?? 0) + 1);
      }
    }
    // Two acknowledged messages (different webhook-ids) for one decision is a
    // duplicate the header cannot reveal to a receiver.
    let twoMessages = 0;
    for (const n of messagesPerTicket.values()) if (n > 1) twoMessages++;
    const lost = this.missing(scope).length;
    return {
      expected: scope.size,
      delivered: scope.size - lost,
      lost,
      duplicated: twoMessages,
      redelivered_after_ack: redelivered,
      raw_repeats: repeats,
      tickets_with_two_messages: twoMessages,
    };
  }

  close(): Promise<void> {
    const s = this.server;
    if (!s) return Promise.resolve();
    return new Promise((r) => {
      s.closeAllConnections();
      s.close(() => r());
    });
  }
}
