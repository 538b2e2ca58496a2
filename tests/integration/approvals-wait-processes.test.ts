import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decideTicket } from '@/lib/server/approvals/decide';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import {
  approvalRequest,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';
import { WaiterProcess } from './waiter-process';

vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

/**
 * Issue 16 item 5 across real processes: decisions made here (this process
 * is the instance reviewers use) answer waiters parked in two other Node
 * processes — through Redis pub/sub while their subscribers are up, and
 * through each process's one batched check once a subscriber is gone.
 */
describe('parked waits in other processes', () => {
  const channel = () => `${testRedis().prefix}wait-processes`;
  const procs: WaiterProcess[] = [];
  let host: { id: string; key: string };
  let reviewer: { id: string };

  beforeAll(async () => {
    await truncateAll();
    await configureTicketEvents({
      redisUrl: testRedis().url,
      channel: channel(),
      instanceId: 'it-main',
    });
    host = await hostWithKey('billing');
    reviewer = await userWith('rita@example.com', ['reviewer']);
    for (const name of ['b', 'c']) {
      const p = new WaiterProcess({
        WAITER_REDIS_URL: testRedis().url,
        WAITER_CHANNEL: channel(),
        WAITER_INSTANCE: `it-${name}`,
      });
      procs.push(p);
      await p.start();
    }
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) await p.stop();
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  async function tickets(n: number) {
    const out: Array<{ id: string; identity: string }> = [];
    for (let i = 0; i < n; i++) {
      const res = await post(host.key, approvalRequest(transferContext()));
      out.push({ id: res.body.id as string, identity: res.body.context_identity as string });
    }
    return out;
  }

  const approve = (t: { id: string; identity: string }) =>
    decideTicket({
      ticketId: t.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: t.identity,
    });

  async function answered(p: WaiterProcess, ids: string[]) {
    for (let i = 0; i < 600 && ids.some((id) => !p.answers.has(id)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    return ids.map((id) => p.answers.get(id));
  }

  it('a decision here wakes waiters in both other processes through pub/sub, with no check', async () => {
    const ts = await tickets(12);
    const [b, c] = procs;
    const sb = await b.until((s) => s.live);
    const sc = await c.until((s) => s.live);
    for (const [i, t] of ts.entries()) (i % 2 ? c : b).wait(t.id, host.id, 25_000);
    await b.until((s) => s.waited === 6);
    await c.until((s) => s.waited === 6);
    for (const t of ts) await approve(t);
    const ab = await answered(
      b,
      ts.filter((_, i) => i % 2 === 0).map((t) => t.id),
    );
    const ac = await answered(
      c,
      ts.filter((_, i) => i % 2 === 1).map((t) => t.id),
    );
    for (const a of [...ab, ...ac])
      expect(a).toMatchObject({ state: 'resolved', outcome: 'approve' });
    // Woken by the messages: neither process ran its 30 s backstop check.
    expect((await b.stats()).statements).toBe(sb.statements);
    expect((await c.stats()).statements).toBe(sc.statements);
  }, 60_000);

  it('with its subscriber gone, a process answers its waiters through one batched check per interval', async () => {
    const ts = await tickets(10);
    const [b, c] = procs;
    b.disconnect();
    const before = await b.until((s) => !s.live);
    for (const t of ts) b.wait(t.id, host.id, 25_000);
    await b.until((s) => s.waited === 10);
    const started = Date.now();
    for (const t of ts) await approve(t);
    const answers = await answered(
      b,
      ts.map((t) => t.id),
    );
    for (const a of answers) expect(a).toMatchObject({ state: 'resolved', outcome: 'approve' });
    const after = await b.stats();
    // Answered by its checks: at least one ran, and never one per waiter.
    expect(after.statements).toBeGreaterThan(before.statements);
    expect(after.statements - before.statements).toBeLessThanOrEqual(
      Math.ceil((Date.now() - started) / 1_000) + 2,
    );
    // The other process is still subscribed: its waits stay on pub/sub.
    expect((await c.stats()).live).toBe(true);
  }, 60_000);
});
