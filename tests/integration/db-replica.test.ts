import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { listAuditHosts } from '@/lib/server/audit/hosts';
import { db } from '@/lib/server/db';
import { auditDb, replicaStatus } from '@/lib/server/db/audit-db';
import { migrateTarget } from '@/lib/server/db/migrate-target';
import { openDatabase } from '@/lib/server/db/open';
import { ReplicaRouter } from '@/lib/server/db/replica';
import { buildReadiness } from '@/lib/server/health/readiness';

/**
 * DATABASE_REPLICA_URL (docs/scaling.md): audit reads go to the replica
 * while it answers and to the primary while it does not. A second database
 * of the same schema stands in for the replica; it holds a host the primary
 * does not, so a read shows which of the two answered.
 */

// Before any import reads the configuration (module loggers do, at import).
const { replicaName, replicaUrl } = vi.hoisted(() => {
  const u = new URL(process.env.DATABASE_URL ?? '');
  const name = `${u.pathname.slice(1)}_replica`;
  u.pathname = `/${name}`;
  process.env.DATABASE_REPLICA_URL = u.toString();
  return { replicaName: name, replicaUrl: u.toString() };
});
const adminUrl = inject('databaseAdminUrl');
/** Nothing listens on port 1: connections are refused at once. */
const deadUrl = 'postgresql://postgres@127.0.0.1:1/none';
const onlyOnReplica = `replica-only-${randomUUID().slice(0, 8)}`;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe('audit reads on a read replica', () => {
  beforeAll(async () => {
    await admin(`CREATE DATABASE "${replicaName}"`);
    await migrateTarget({ kind: 'postgres', url: replicaUrl });
    const c = new pg.Client({ connectionString: replicaUrl });
    await c.connect();
    await c.query(
      `INSERT INTO "Host" ("id", "name", "createdAt", "updatedAt") VALUES ($1, $2, now(), now())`,
      [randomUUID(), onlyOnReplica],
    );
    await c.end();
  });

  afterAll(async () => {
    delete process.env.DATABASE_REPLICA_URL;
    await admin(`DROP DATABASE IF EXISTS "${replicaName}" WITH (FORCE)`);
  });

  it('the audit browser reads from the replica when one is configured', async () => {
    const hosts = await listAuditHosts({ id: randomUUID(), roles: ['auditor'] });
    expect(hosts.map((h) => h.name)).toContain(onlyOnReplica);
    expect(await replicaStatus()).toBe('ok');
    // Writes and everything else stay on the primary.
    const primary = await db();
    expect(await primary.host.count({ where: { name: onlyOnReplica } })).toBe(0);
    expect(await auditDb()).not.toBe(primary);
  });

  it('an unreachable replica sends audit reads to the primary and reports it', async () => {
    const primary = await db();
    const changes: string[] = [];
    const router = new ReplicaRouter({
      target: { kind: 'postgres', url: deadUrl },
      open: (t) => openDatabase(t),
      primary: async () => primary,
      pingTimeoutMs: 2_000,
      onChange: (s) => changes.push(s),
    });
    try {
      expect(await router.client()).toBe(primary);
      expect(await router.status()).toBe('unreachable');
    } finally {
      await router.close();
    }
  });

  it('comes back to the replica once it answers again', async () => {
    const primary = await db();
    let now = 0;
    let target = { kind: 'postgres' as const, url: deadUrl };
    const router = new ReplicaRouter({
      target,
      open: () => openDatabase(target),
      primary: async () => primary,
      recheckMs: 1_000,
      now: () => now,
    });
    try {
      expect(await router.client()).toBe(primary);
      // The replica is reachable from now on (the next open uses the live URL).
      target = { kind: 'postgres', url: replicaUrl };
      now += 500;
      expect(await router.status()).toBe('unreachable'); // still within recheckMs
      now += 1_000;
      expect(await router.status()).toBe('ok');
      const client = await router.client();
      expect(client).not.toBe(primary);
      expect(await client.host.count({ where: { name: onlyOnReplica } })).toBe(1);
    } finally {
      await router.close();
    }
  });

  it('readiness says degraded, with a reason, while the replica is unreachable', async () => {
    const r = await buildReadiness({
      pingDb: async () => true,
      migrationStatus: async () => ({ applied: 1, pending: [] }),
      hasEnabledAdmin: async () => true,
      queueStatus: async () => ({
        redis: 'online',
        waiting: 0,
        scheduled: 0,
        outboxScheduled: 0,
        outboxPending: 0,
        failed: 0,
      }),
      replicaStatus: async () => 'unreachable',
      dbKind: 'postgres',
    });
    expect(r.status).toBe('degraded');
    expect(r.reasons).toEqual(['replica_unreachable']);
    expect(r.checks.replica.state).toBe('unreachable');
  });
});
