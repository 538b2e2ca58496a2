import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import type { JobContext } from '@/lib/server/jobs/runnable';
import { webhooksResolveJob } from '@/lib/server/jobs/webhooks-resolve';
import { listDeliveries } from '@/lib/server/webhooks/delivery-log';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { testRedis } from './helpers/redis';
import { makeHost } from './webhooks-fixtures';
import { resolverService } from './webhooks-secret-fixtures';

/**
 * Issue 17: a resolver consultation whose request went out but whose
 * aftermath threw (here the decision's write fails) left its delivery row
 * with 0 attempts while BullMQ ran the job again, consulting the resolver
 * again each time, with nothing in the delivery log. Every try is an
 * attempt with its error, like a callback's.
 */

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});

const CONTEXT = '{"target":{"name":"wire_transfer"}}';

async function resolverTicket(hostId: string): Promise<string> {
  const prisma = await testDb();
  const t = await prisma.approvalTicket.create({
    data: {
      hostId,
      contextIdentity: `sha256:${'ab'.repeat(32)}`,
      interceptionPoint: 'pre_tool_call',
      verdict: { decision: 'deny', reason: 'review', approval: {} },
      context: JSON.parse(CONTEXT),
      contextJson: CONTEXT,
      sessionId: 's-resolver-attempt',
      agentId: 'billing-bot',
      expiresAt: new Date(Date.now() + 3_600_000),
      resolverUntil: new Date(Date.now() + 60_000),
    },
    select: { id: true },
  });
  return t.id;
}

/** Makes the next `n` updates of `table` fail (a sequence survives the rollback). */
async function failNextUpdates(table: string, n: number) {
  const prisma = await testDb();
  await prisma.$executeRawUnsafe('CREATE SEQUENCE ck_fail_seq');
  await prisma.$executeRawUnsafe(`
    CREATE FUNCTION ck_fail() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('ck_fail_seq') <= ${n} THEN RAISE EXCEPTION 'injected failure'; END IF;
      RETURN NEW;
    END $$`);
  await prisma.$executeRawUnsafe(
    `CREATE TRIGGER ck_fail BEFORE UPDATE ON "${table}" FOR EACH ROW EXECUTE FUNCTION ck_fail()`,
  );
  return async () => {
    await prisma.$executeRawUnsafe(`DROP TRIGGER ck_fail ON "${table}"`);
    await prisma.$executeRawUnsafe('DROP FUNCTION ck_fail()');
    await prisma.$executeRawUnsafe('DROP SEQUENCE ck_fail_seq');
  };
}

describe('resolver consultation that throws after its request (issue 17)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
  });
  beforeEach(truncateAll);
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await stopApprovalsRuntime();
    await closeTestDb();
  });

  it('is recorded as a failed attempt with its error, hands the ticket over, and a rerun does not consult again', async () => {
    const service = resolverService();
    await service.start();
    cleanups.push(() => service.stop());
    const hostId = await makeHost('resolver-throws');
    await saveWebhook({ hostId, kind: 'resolver', url: `${service.url}/r` }, null);
    const ticketId = await resolverTicket(hostId);
    const selfTests = service.received.length;

    // The resolver approves; writing the decision fails.
    const restore = await failNextUpdates('ApprovalTicket', 1);
    try {
      await webhooksResolveJob.handler({ ticketId }, {} as JobContext);
    } finally {
      await restore();
    }
    expect(service.received.length - selfTests).toBe(1);
    const [row] = await listDeliveries(hostId);
    expect(row).toMatchObject({ kind: 'resolver', attempts: 1, status: 'dead' });
    expect(row.lastError).toMatch(/^attempt_error: .*injected failure/);
    const prisma = await testDb();
    const ticket = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticketId } });
    // Nothing decided by default: the reviewers have it now.
    expect(ticket).toMatchObject({ status: 'pending', resolverUntil: null });
    expect((await prisma.webhook.findFirstOrThrow({ where: { hostId } })).consecutiveFailures).toBe(
      1,
    );

    // BullMQ running the job again finds the attempt: no second consultation.
    await webhooksResolveJob.handler({ ticketId }, {} as JobContext);
    expect(service.received.length - selfTests).toBe(1);
    expect((await listDeliveries(hostId))[0]).toMatchObject({ attempts: 1 });
  });

  it('when the attempt cannot be recorded either, the job throws and the next try is recorded', async () => {
    const service = resolverService();
    await service.start();
    cleanups.push(() => service.stop());
    const hostId = await makeHost('resolver-db-down');
    await saveWebhook({ hostId, kind: 'resolver', url: `${service.url}/r` }, null);
    const ticketId = await resolverTicket(hostId);
    const selfTests = service.received.length;

    // The decision and both writes of the attempt fail: nothing can be recorded.
    const restoreTicket = await failNextUpdates('ApprovalTicket', 1);
    let thrown: unknown;
    try {
      const prisma = await testDb();
      await prisma.$executeRawUnsafe(
        `CREATE FUNCTION ck_fail_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'delivery write down'; END $$`,
      );
      await prisma.$executeRawUnsafe(
        `CREATE TRIGGER ck_fail_delivery BEFORE UPDATE ON "WebhookDelivery"
           FOR EACH ROW EXECUTE FUNCTION ck_fail_delivery()`,
      );
      try {
        await webhooksResolveJob.handler({ ticketId }, {} as JobContext);
      } catch (err) {
        thrown = err;
      } finally {
        await prisma.$executeRawUnsafe('DROP TRIGGER ck_fail_delivery ON "WebhookDelivery"');
        await prisma.$executeRawUnsafe('DROP FUNCTION ck_fail_delivery()');
      }
    } finally {
      await restoreTicket();
    }
    expect(String(thrown)).toContain('injected failure');
    expect((await listDeliveries(hostId))[0]).toMatchObject({ attempts: 0 });

    // BullMQ's retry: the consultation runs again, and this time it lands.
    await webhooksResolveJob.handler({ ticketId }, {} as JobContext);
    expect(service.received.length - selfTests).toBe(2);
    expect((await listDeliveries(hostId))[0]).toMatchObject({ attempts: 1, status: 'delivered' });
    const prisma = await testDb();
    expect(
      await prisma.approvalTicket.findUniqueOrThrow({ where: { id: ticketId } }),
    ).toMatchObject({ status: 'approved' });
  });
});
