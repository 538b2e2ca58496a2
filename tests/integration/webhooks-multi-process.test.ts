import { createHmac } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { configureTicketEvents } from '@/lib/server/approvals/events';
import { decideTicket } from '@/lib/server/approvals/decide';
import { stopApprovalsRuntime } from '@/lib/server/approvals/runtime';
import { checkKeyFingerprints } from '@/lib/server/db/key-fingerprints';
import { checkpointMetrics } from '@/lib/server/metrics/registry';
import { setWebhookGauges } from '@/lib/server/metrics/webhooks';
import { redeliver } from '@/lib/server/webhooks/deliveries';
import { listDeliveries, webhookAlerts } from '@/lib/server/webhooks/delivery-log';
import { verifyWebhook } from '@/lib/server/webhooks/signing';
import { saveWebhook } from '@/lib/server/webhooks/webhooks';
import {
  approvalRequest,
  hostWithKey,
  post,
  transferContext,
  userWith,
} from './approvals-fixtures';
import { closeTestDb, testDb, truncateAll } from './helpers/db';
import { waitFor } from './helpers/queue';
import { testRedis } from './helpers/redis';
import { Receiver } from './webhooks-fixtures';
import { corruptSecrets, resolverService } from './webhooks-secret-fixtures';
import { claimRedisDb, type RedisDb, WorkerProcess } from './worker-process';

/**
 * Issue 17, item 1: the docker-compose shape. This process is the app side
 * (intake, decisions, webhook settings, through the services) with its own
 * DATA_DIR; a separate `scripts/worker.ts` process with another DATA_DIR
 * delivers, on one PostgreSQL. Before the fix each generated its own
 * APP_ENCRYPTION_KEY into its DATA_DIR, and the worker failed every delivery
 * with "unable to authenticate data", leaving it pending with no attempt.
 */

const appDataDir = await vi.hoisted(async () => {
  // Before any module reads the configuration: the app side's own DATA_DIR.
  const fs = await import('node:fs');
  const os = await import('node:os');
  const dir = fs.mkdtempSync(`${os.tmpdir()}/ck-app-`);
  process.env.DATA_DIR = dir;
  process.env.WEBHOOKS_ALLOW_HTTP_LOOPBACK = 'true';
  return dir;
});
vi.mock('@/lib/server/auth/session', () => ({ getCurrentUser: async () => null }));

const KEY = process.env.APP_ENCRYPTION_KEY as string;
const real = (r: Receiver) => r.received.filter((x) => x.headers['webhook-test'] !== 'true');

/** The host's newest delivery of that kind, once it has an attempt. */
async function delivery(hostId: string, kind: 'callback' | 'resolver') {
  return waitFor(
    async () => {
      const rows = (await listDeliveries(hostId)).filter((d) => d.kind === kind);
      return rows[0]?.attempts ? rows[0] : null;
    },
    30_000,
    100,
  );
}

describe('app and a separate worker process on one PostgreSQL (issue 17)', () => {
  let redisDb: RedisDb;
  let worker: WorkerProcess;
  const others: WorkerProcess[] = [];
  const receivers: Receiver[] = [];

  const receiver = async (r = new Receiver()) => {
    await r.start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    await truncateAll();
    const { url, prefix } = testRedis();
    await configureTicketEvents({ redisUrl: url, channel: `${prefix}tickets` });
    // What boot() does in the app: record (or check) the keys' fingerprints.
    await checkKeyFingerprints(await testDb());
    redisDb = await claimRedisDb();
    worker = new WorkerProcess({ REDIS_URL: redisDb.url });
    await worker.start();
  });
  afterAll(async () => {
    for (const w of [worker, ...others]) await w?.stop();
    for (const r of receivers) await r.stop();
    await redisDb?.release();
    await stopApprovalsRuntime();
    await closeTestDb();
    rmSync(appDataDir, { recursive: true, force: true });
  });

  it('the worker consults the resolver and delivers the callback, both signed with the secrets the app stored', async () => {
    const host = await hostWithKey('mp-resolver-host');
    const resolver = await receiver(resolverService());
    const callback = await receiver();
    const r = await saveWebhook(
      { hostId: host.id, kind: 'resolver', url: `${resolver.url}/r`, timeoutMs: 3000 },
      null,
    );
    expect(r.selfTest?.ok).toBe(true);
    const c = await saveWebhook(
      { hostId: host.id, kind: 'callback', url: `${callback.url}/cb` },
      null,
    );

    const res = await post(host.key, approvalRequest(transferContext()));
    expect(res.status).toBe(201);
    await waitFor(async () => real(resolver).length === 1 && real(callback).length === 1, 30_000);
    const [consulted] = real(resolver);
    expect(verifyWebhook(r.secret as string, consulted.headers, consulted.body)).toEqual({
      ok: true,
    });
    expect(JSON.parse(consulted.body).context_identity).toBe(res.body.context_identity);
    const [called] = real(callback);
    expect(verifyWebhook(c.secret as string, called.headers, called.body)).toEqual({ ok: true });
    expect(JSON.parse(called.body).data).toMatchObject({
      ticket_id: res.body.id,
      status: 'approved',
    });

    expect(await delivery(host.id, 'resolver')).toMatchObject({
      status: 'delivered',
      attempts: 1,
      lastError: null,
    });
    expect(await delivery(host.id, 'callback')).toMatchObject({
      status: 'delivered',
      attempts: 1,
      lastError: null,
    });
    // Nothing was generated into either DATA_DIR: both processes use the explicit key.
    expect(existsSync(path.join(appDataDir, 'encryption-key'))).toBe(false);
    expect(existsSync(path.join(worker.dataDir, 'encryption-key'))).toBe(false);
  });

  it("a reviewer's decision made on the app side reaches the callback receiver through the worker", async () => {
    const host = await hostWithKey('mp-human-host');
    const callback = await receiver();
    const c = await saveWebhook(
      { hostId: host.id, kind: 'callback', url: `${callback.url}/cb` },
      null,
    );
    const res = await post(host.key, approvalRequest(transferContext()));
    expect(res.status).toBe(201);
    const reviewer = await userWith('mp-reviewer@example.com', ['reviewer']);
    await decideTicket({
      ticketId: res.body.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'reject',
      reason: 'not this week',
      contextIdentity: res.body.context_identity,
    });
    await waitFor(async () => callback.received.length === 1, 30_000);
    const [called] = callback.received;
    expect(verifyWebhook(c.secret as string, called.headers, called.body)).toEqual({ ok: true });
    expect(JSON.parse(called.body).data).toMatchObject({
      ticket_id: res.body.id,
      status: 'rejected',
    });
  });

  it('a secret the worker cannot decrypt: a failed attempt with its error, counted toward auto-disable; a redelivery records another', async () => {
    const host = await hostWithKey('mp-corrupt-host');
    const callback = await receiver();
    const c = await saveWebhook(
      { hostId: host.id, kind: 'callback', url: `${callback.url}/cb` },
      null,
    );
    await corruptSecrets(c.webhook.id);
    const prisma = await testDb();
    // One failure short of the default threshold (20): this attempt disables it.
    await prisma.webhook.update({ where: { id: c.webhook.id }, data: { consecutiveFailures: 19 } });
    const res = await post(host.key, approvalRequest(transferContext()));
    const reviewer = await userWith('mp-reviewer2@example.com', ['reviewer']);
    await decideTicket({
      ticketId: res.body.id,
      actor: { kind: 'human', userId: reviewer.id },
      outcome: 'approve',
      contextIdentity: res.body.context_identity,
    });

    const row = await delivery(host.id, 'callback');
    expect(row).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: null });
    expect(row.lastError).toMatch(/^signing_secret_unreadable: .*APP_ENCRYPTION_KEY/);
    expect(row.nextAttemptAt).not.toBeNull(); // retried on the schedule like any failure
    expect(callback.received).toHaveLength(0);
    const hook = await prisma.webhook.findUniqueOrThrow({ where: { id: c.webhook.id } });
    expect(hook).toMatchObject({ enabled: false, consecutiveFailures: 20 });
    const [alert] = await webhookAlerts(host.id);
    expect(alert.disabledReason).toContain(
      '20 consecutive failed deliveries (last: signing_secret_unreadable',
    );
    expect(
      await prisma.auditEvent.count({ where: { action: 'webhook.disabled', targetId: host.id } }),
    ).toBe(1);

    // The scrape-time gauges see what the worker did.
    await setWebhookGauges(prisma);
    const gauge = async (
      name: 'webhookDeliveries' | 'webhooksDisabled',
      labels: Record<string, string>,
    ) => {
      const metric = await checkpointMetrics()[name].get();
      const values = metric.values as { labels: Record<string, unknown>; value: number }[];
      return values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))
        ?.value;
    };
    expect(await gauge('webhookDeliveries', { kind: 'callback', status: 'failed' })).toBe(1);
    expect(await gauge('webhooksDisabled', { kind: 'callback' })).toBe(1);

    await redeliver(host.id, row.id);
    const again = await waitFor(async () => {
      const d = await delivery(host.id, 'callback');
      return d.attempts === 2 ? d : null;
    }, 30_000);
    expect(again.status).toBe('dead');
    expect(again.lastError).toMatch(/^signing_secret_unreadable: /);
    expect(callback.received).toHaveLength(0);
  });

  it('a resolver whose secret the worker cannot decrypt: a failed consultation, recorded, the ticket handed to reviewers', async () => {
    const host = await hostWithKey('mp-corrupt-resolver');
    const resolver = await receiver(resolverService());
    const r = await saveWebhook(
      { hostId: host.id, kind: 'resolver', url: `${resolver.url}/r`, timeoutMs: 3000 },
      null,
    );
    await corruptSecrets(r.webhook.id);
    const res = await post(host.key, approvalRequest(transferContext()));
    const row = await delivery(host.id, 'resolver');
    expect(row).toMatchObject({ attempts: 1, status: 'dead' });
    expect(row.lastError).toMatch(/^signing_secret_unreadable: /);
    expect(real(resolver)).toHaveLength(0);
    const prisma = await testDb();
    expect(await prisma.webhook.findUniqueOrThrow({ where: { id: r.webhook.id } })).toMatchObject({
      consecutiveFailures: 1,
    });
    // Handed over to the reviewers at once, not at the end of the resolver phase.
    await waitFor(async () => {
      const t = await prisma.approvalTicket.findUniqueOrThrow({ where: { id: res.body.id } });
      return t.status === 'pending' && t.resolverUntil === null;
    });
  });

  it('a worker with a different APP_ENCRYPTION_KEY refuses to start, naming the key and the fingerprint', async () => {
    const other = new WorkerProcess({
      REDIS_URL: redisDb.url,
      APP_ENCRYPTION_KEY: `${KEY}-not-the-same`,
    });
    others.push(other);
    expect(await other.runToExit()).toBe(1);
    const recorded = createHmac('sha256', KEY)
      .update('checkpoint key fingerprint v1')
      .digest('hex');
    expect(other.output).toContain(
      `APP_ENCRYPTION_KEY differs from the one this database was set up with (fingerprint ${recorded.slice(0, 16)}`,
    );
    expect(other.output).not.toContain('"worker started"');
    expect(other.output).not.toContain(KEY);
  });

  it('a worker without APP_ENCRYPTION_KEY refuses to start and says how to make one', async () => {
    const other = new WorkerProcess({ REDIS_URL: redisDb.url, APP_ENCRYPTION_KEY: '' });
    others.push(other);
    expect(await other.runToExit()).toBe(1);
    expect(other.output).toContain('APP_ENCRYPTION_KEY is required when DATABASE_URL is set');
    expect(other.output).toContain('openssl rand -base64 48');
    expect(existsSync(path.join(other.dataDir, 'encryption-key'))).toBe(false);
  });
});
