// Brings the cluster up: scratch database, Redis database index, two app
// instances (RUN_WORKER=false, shared keys, separate DATA_DIRs), one worker
// process, three hosts with API keys, two callback receivers, and a
// reviewer linked to a Slack user (the HTTP path decisions take).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { HostClient, SlackReviewer } from './api';
import {
  appInstance,
  type ClusterProcess,
  claimRedisDb,
  freePort,
  onCleanup,
  runDir,
  scratchDatabase,
  workerProcess,
} from './infra';
import { CallbackReceiver } from './receiver';

export interface Cluster {
  db: { name: string; url: string };
  redis: { url: string; index: number; token: string };
  dir: string;
  env: Record<string, string>;
  apps: [
    { name: string; base: string; proc: ClusterProcess },
    { name: string; base: string; proc: ClusterProcess },
  ];
  worker: ClusterProcess;
  workers: number;
  /** Long-polls and decisions (no webhook). */
  pollHost: HostClient;
  /** Expiry storm (no webhook). */
  expiryHost: HostClient;
  fastHost: HostClient;
  slowHost: HostClient;
  fast: CallbackReceiver;
  slow: CallbackReceiver;
  reviewer: SlackReviewer;
  sql: pg.Pool;
  /** Starts a fresh worker process (after a kill). */
  startWorker(): Promise<ClusterProcess>;
}

export const SLOW_RECEIVER_MS = 4_500;

export async function startCluster(
  distDir: string,
  log: (...a: unknown[]) => void,
): Promise<Cluster> {
  const db = await scratchDatabase();
  const redis = await claimRedisDb();
  const dir = runDir();
  log(`database ${db.name}, Redis db ${redis.index}, logs in ${dir}`);
  const signingSecret = randomBytes(24).toString('hex');
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    APP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    AUTH_SECRET: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: 'bench-admin@example.com',
    ADMIN_PASSWORD: randomBytes(12).toString('hex'),
    SLACK_SIGNING_SECRET: signingSecret,
    LOG_LEVEL: 'warn',
    WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true',
    // Issue 17 item 2: the reconciler finds work Redis lost; fast here so a run settles.
    OUTBOX_RECONCILE_INTERVAL_MS: process.env.OUTBOX_RECONCILE_INTERVAL_MS ?? '2000',
    OUTBOX_RECONCILE_LEASE_MS: process.env.OUTBOX_RECONCILE_LEASE_MS ?? '2000',
  };
  // The bench process reads the scratch database through the app's own client.
  process.env.DATABASE_URL = db.url;
  process.env.REDIS_URL = redis.url;
  process.env.APP_ENCRYPTION_KEY = env.APP_ENCRYPTION_KEY;
  process.env.LOG_LEVEL = 'warn';

  const ports = [await freePort(), await freePort()];
  const mk = (name: string, port: number) => ({
    name,
    base: `http://127.0.0.1:${port}`,
    proc: appInstance(name, port, distDir, env, dir),
  });
  const apps: Cluster['apps'] = [mk('app-a', ports[0]), mk('app-b', ports[1])];
  const ready = (base: string) => async () => {
    try {
      return (await fetch(`${base}/api/ready`)).status === 200;
    } catch {
      return false;
    }
  };
  // The first instance applies the migrations (MIGRATE_ON_START) and creates
  // the admin; the others start on a migrated database.
  log('starting app-a (migrates the database)…');
  apps[0].proc.start();
  await apps[0].proc.waitFor(ready(apps[0].base), 180_000);

  let workers = 0;
  const startWorker = async () => {
    const w = workerProcess(`worker-${++workers}`, env, dir);
    w.start();
    await w.waitFor(() => w.output.includes('"worker started"'), 120_000);
    return w;
  };
  log('starting app-b and the worker…');
  apps[1].proc.start();
  const [worker] = await Promise.all([
    startWorker(),
    apps[1].proc.waitFor(ready(apps[1].base), 180_000),
  ]);

  const { db: openDb } = await import('../../lib/server/db');
  const { generateApiKey } = await import('../../lib/server/hosts/api-key');
  const prisma = await openDb();
  const makeHost = async (name: string): Promise<HostClient> => {
    const host = await prisma.host.create({ data: { name }, select: { id: true } });
    const key = generateApiKey();
    await prisma.apiKey.create({
      data: { hostId: host.id, name, prefix: key.prefix, hash: key.hash },
    });
    return { name, id: host.id, key: key.key };
  };
  const pollHost = await makeHost('bench-polls');
  const expiryHost = await makeHost('bench-expiry');
  const fastHost = await makeHost('bench-fast');
  const slowHost = await makeHost('bench-slow');

  // A reviewer whose Slack link is confirmed, in the workspace an admin set.
  const reviewer: SlackReviewer = { signingSecret, teamId: 'TBENCH0001', userId: 'UBENCH0001' };
  await prisma.user.create({
    data: {
      email: 'bench-reviewer@example.com',
      roles: ['reviewer'],
      slackUserId: reviewer.userId,
      slackLinkedAt: new Date(),
    },
  });
  await prisma.appSetting.create({
    data: { key: 'slack_team', value: { teamId: reviewer.teamId, source: 'admin' } },
  });

  const fast = new CallbackReceiver('fast');
  const slow = new CallbackReceiver('slow', SLOW_RECEIVER_MS);
  await fast.listen();
  await slow.listen();
  onCleanup(() => fast.close());
  onCleanup(() => slow.close());
  for (const [host, receiver] of [
    [fastHost, fast],
    [slowHost, slow],
  ] as const) {
    const res = await fetch(`${apps[0].base}/api/v1/webhooks/callback`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${host.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, timeout_ms: 5_000 }),
    });
    if (res.status !== 201) {
      throw new Error(`webhook for ${host.name}: ${res.status} ${await res.text()}`);
    }
  }

  const sql = new pg.Pool({ connectionString: db.url, max: 2 });
  onCleanup(() => sql.end());
  onCleanup(async () => {
    const { closeDb } = await import('../../lib/server/db');
    await closeDb();
  });

  const cluster: Cluster = {
    db,
    redis,
    dir,
    env,
    apps,
    worker,
    workers,
    pollHost,
    expiryHost,
    fastHost,
    slowHost,
    fast,
    slow,
    reviewer,
    sql,
    startWorker: async () => {
      const w = await startWorker();
      cluster.workers = workers;
      return w;
    },
  };
  return cluster;
}
