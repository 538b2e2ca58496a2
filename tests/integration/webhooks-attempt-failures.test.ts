import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobContext } from '@/lib/server/jobs/runnable';
import { webhooksDeliverJob } from '@/lib/server/jobs/webhooks-deliver';
import { checkpointMetrics } from '@/lib/server/metrics/registry';
import { createCallbackDelivery, WORKER_STOPPED_ERROR } from '@/lib/server/webhooks/deliveries';
import { listDeliveries, webhookAlerts } from '@/lib/server/webhooks/delivery-log';
import { setWebhookPolicy } from '@/lib/server/webhooks/policy';
import { saveWebhook, selfTestResolver } from '@/lib/server/webhooks/webhooks';
import { ApiError } from '@/lib/server/http/api-error';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { waitFor } from './helpers/queue';
import { decidedTicket, makeHost, Receiver, startPipeline } from './webhooks-fixtures';
import { corruptSecrets, resolverService } from './webhooks-secret-fixtures';

/**
 * Issue 17, item 1: an attempt that fails before (or around) the request is
 * still an attempt: recorded with its error, retried on the schedule,
 * counted toward auto-disable and in the metrics. Before, the job threw and
 * the delivery stayed `pending` with 0 attempts and no error.
 */

vi.hoisted(() => {
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
});

const cleanups: (() => Promise<void>)[] = [];

async function callbackHost(name: string) {
  const receiver = new Receiver();
  await receiver.start();
  cleanups.push(() => receiver.stop());
  const hostId = await makeHost(name);
  const saved = await saveWebhook({ hostId, kind: 'callback', url: `${receiver.url}/hook` }, null);
  return { receiver, hostId, webhookId: saved.webhook.id };
}

async function counter(
  name: 'webhookAttempts' | 'webhooksAutoDisabled',
  labels: Record<string, string>,
) {
  const metric = await checkpointMetrics()[name].get();
  const values = metric.values as { labels: Record<string, unknown>; value: number }[];
  const v = values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

describe('webhook attempts that fail before the request (issue 17)', () => {
  beforeEach(truncateAll);
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    setWebhookPolicy(null);
  });
  afterAll(closeTestDb);

  it('an undecryptable secret: every attempt recorded with the error, retried, then the endpoint disabled and counted', async () => {
    setWebhookPolicy({ retryDelaysMs: [20, 20, 20, 20], disableAfterFailures: 3 });
    const { receiver, hostId, webhookId } = await callbackHost('undecryptable');
    const prisma = await testDb();
    const [s] = await prisma.webhookSecret.findMany({ where: { webhookId } });
    const parts = s.secret.split(':');
    parts[2] = (parts[2][0] === 'A' ? 'B' : 'A') + parts[2].slice(1); // the GCM tag
    await prisma.webhookSecret.update({ where: { id: s.id }, data: { secret: parts.join(':') } });
    const notSentBefore = await counter('webhookAttempts', {
      kind: 'callback',
      outcome: 'not_sent',
    });
    const disabledBefore = await counter('webhooksAutoDisabled', { kind: 'callback' });

    const pipe = await startPipeline();
    cleanups.push(() => pipe.stop());
    await decidedTicket(hostId);
    const [alert] = await waitFor(async () => {
      const a = await webhookAlerts(hostId);
      return a.length ? a : null;
    });
    expect(alert.disabledReason).toContain(
      '3 consecutive failed deliveries (last: signing_secret_unreadable:',
    );
    const hook = await prisma.webhook.findUniqueOrThrow({ where: { id: webhookId } });
    expect(hook).toMatchObject({ enabled: false, consecutiveFailures: 3 });
    expect(receiver.received).toHaveLength(0);
    expect(await counter('webhookAttempts', { kind: 'callback', outcome: 'not_sent' })).toBe(
      notSentBefore + 3,
    );
    expect(await counter('webhooksAutoDisabled', { kind: 'callback' })).toBe(disabledBefore + 1);
    // The log shows what happened: three attempts, then parked by the disable.
    const [row] = await waitFor(async () => {
      const rows = await listDeliveries(hostId);
      return rows[0]?.status === 'dead' ? rows : null;
    });
    expect(row).toMatchObject({ attempts: 3, lastError: 'webhook_disabled' });
  });

  it('an exception around the request (here: recording it fails once) is recorded as a failed attempt, not a silent pending', async () => {
    const { receiver, hostId } = await callbackHost('throws-once');
    const ticketId = await decidedTicket(hostId);
    const deliveryId = (await createCallbackDelivery(ticketId)) as string;
    const prisma = await testDb();
    // A sequence is not rolled back with the failed transaction: exactly the
    // first update that records an attempt fails (not the in-flight mark).
    await prisma.$executeRawUnsafe('CREATE SEQUENCE ck_fail_once_seq');
    await prisma.$executeRawUnsafe(`
      CREATE FUNCTION ck_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW."attempts" <> OLD."attempts" AND nextval('ck_fail_once_seq') = 1 THEN
          RAISE EXCEPTION 'injected failure';
        END IF;
        RETURN NEW;
      END $$`);
    await prisma.$executeRawUnsafe(`
      CREATE TRIGGER ck_fail_once BEFORE UPDATE ON "WebhookDelivery"
        FOR EACH ROW EXECUTE FUNCTION ck_fail_once()`);
    try {
      await webhooksDeliverJob.handler({ deliveryId, attempt: 1, manual: false }, {} as JobContext);
    } finally {
      await prisma.$executeRawUnsafe('DROP TRIGGER ck_fail_once ON "WebhookDelivery"');
      await prisma.$executeRawUnsafe('DROP FUNCTION ck_fail_once()');
      await prisma.$executeRawUnsafe('DROP SEQUENCE ck_fail_once_seq');
    }
    expect(receiver.received).toHaveLength(1); // it went out; recording it failed
    const [row] = await listDeliveries(hostId);
    expect(row).toMatchObject({ id: deliveryId, attempts: 1, status: 'failed' });
    expect(row.lastError).toMatch(/^attempt_error: .*injected failure/);
    expect(row.lastError).not.toContain('\n'); // no source excerpt from Prisma's message
    expect(row.nextAttemptAt).not.toBeNull();
    const hook = await prisma.webhook.findFirstOrThrow({ where: { hostId } });
    expect(hook.consecutiveFailures).toBe(1);
  });

  it('a worker killed between sending and recording: the next run records that attempt as outcome unknown, then resends under the same webhook-id', async () => {
    setWebhookPolicy({ retryDelaysMs: [20, 20, 20, 20], disableAfterFailures: 5 });
    const { receiver, hostId } = await callbackHost('killed-mid-call');
    const ticketId = await decidedTicket(hostId);
    const deliveryId = (await createCallbackDelivery(ticketId)) as string;
    const prisma = await testDb();
    // What a worker leaves when it is killed after sending attempt 1 and
    // before recording it: the in-flight mark, no recorded attempt.
    await prisma.webhookDelivery.update({
      where: { id: deliveryId },
      data: { inFlightAttempt: 1 },
    });
    // BullMQ runs the stalled job again.
    await webhooksDeliverJob.handler({ deliveryId, attempt: 1, manual: false }, {} as JobContext);
    expect(receiver.received).toHaveLength(0); // recorded, not sent blindly a second time as attempt 1
    let [row] = await listDeliveries(hostId);
    expect(row).toMatchObject({ id: deliveryId, attempts: 1, status: 'failed' });
    expect(row.lastError).toBe(WORKER_STOPPED_ERROR);
    expect(row.nextAttemptAt).not.toBeNull();
    // Attempt 2 goes out, under the delivery's one webhook-id.
    await webhooksDeliverJob.handler({ deliveryId, attempt: 2, manual: false }, {} as JobContext);
    expect(receiver.received).toHaveLength(1);
    [row] = await listDeliveries(hostId);
    expect(row).toMatchObject({ attempts: 2, status: 'delivered' });
    const stored = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
    expect(receiver.received[0].headers['webhook-id']).toBe(stored.messageId);
    // Recorded attempts clear the mark; a normal attempt leaves none behind.
    expect(stored.inFlightAttempt).toBeNull();
  });

  it('re-saving or self-testing a resolver whose secret cannot be read is a 409 signing_secret_unreadable, nothing changed', async () => {
    const service = resolverService();
    await service.start();
    cleanups.push(() => service.stop());
    const hostId = await makeHost('unreadable-resolver');
    const saved = await saveWebhook({ hostId, kind: 'resolver', url: `${service.url}/r` }, null);
    await corruptSecrets(saved.webhook.id);
    const prisma = await testDb();
    const before = await prisma.webhook.findUniqueOrThrow({ where: { id: saved.webhook.id } });
    for (const attempt of [
      () => saveWebhook({ hostId, kind: 'resolver', url: `${service.url}/other` }, null),
      () => selfTestResolver(hostId, null),
    ]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 'signing_secret_unreadable', status: 409 });
    }
    expect(await prisma.webhook.findUniqueOrThrow({ where: { id: saved.webhook.id } })).toEqual(
      before,
    );
  });
});
