import 'server-only';
import { db } from '../db';

/**
 * Waiters' reads of their tickets, coalesced: every read asked for in the
 * same turn of the event loop goes out as one statement. A burst of
 * decisions wakes hundreds of waiters at once (issue 16 item 5: 1,000
 * decisions at 5,000 parked); one read each exhausted the connection pool
 * and answered 503. The row carries the decision's receipt, so an answer
 * needs no second read when it was issued with the decision.
 */

export interface WaitedTicket {
  id: string;
  hostId: string;
  status: string;
  expiresAt: Date;
  resolution: unknown;
  receipt: string | null;
}

/** Most ids in one statement. */
const MAX_BATCH = 1_000;

type Done = (row: WaitedTicket | null | Error) => void;
type Pending = Map<string, Done[]>;
const g = globalThis as unknown as { __checkpointTicketReads?: { pending: Pending } };
const state: { pending: Pending } = g.__checkpointTicketReads ?? { pending: new Map() };
g.__checkpointTicketReads = state;

/** The ticket's row as of now (null when there is none); batched with concurrent reads. */
export function readWaitedTicket(id: string): Promise<WaitedTicket | null> {
  return new Promise((resolve, reject) => {
    const first = state.pending.size === 0;
    const list: Done[] = state.pending.get(id) ?? [];
    list.push((row) => (row instanceof Error ? reject(row) : resolve(row)));
    state.pending.set(id, list);
    if (first) setImmediate(flush);
  });
}

function flush(): void {
  const batch = state.pending;
  state.pending = new Map();
  const ids = [...batch.keys()];
  for (let i = 0; i < ids.length; i += MAX_BATCH) {
    const chunk = ids.slice(i, i + MAX_BATCH);
    load(chunk).then(
      (rows) => {
        for (const id of chunk) for (const done of batch.get(id) ?? []) done(rows.get(id) ?? null);
      },
      (err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        for (const id of chunk) for (const done of batch.get(id) ?? []) done(e);
      },
    );
  }
}

async function load(ids: string[]): Promise<Map<string, WaitedTicket>> {
  const prisma = await db();
  const rows = await prisma.approvalTicket.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      hostId: true,
      status: true,
      expiresAt: true,
      resolution: true,
      decision: { select: { receipt: true } },
    },
  });
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        hostId: r.hostId,
        status: r.status,
        expiresAt: r.expiresAt,
        resolution: r.resolution,
        receipt: r.decision?.receipt ?? null,
      },
    ]),
  );
}
