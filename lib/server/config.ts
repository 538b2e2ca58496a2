import 'server-only';
import path from 'node:path';
import { z } from 'zod';
import { parseTrustedProxies } from './http/trusted-proxies';
import { DEFAULT_LANE_CONCURRENCY, JOB_LANES, type JobLane } from './jobs/definitions';
import { parseSigningKey } from './signing/key-material';

/**
 * Configuration, read and validated once; nothing else reads `process.env`,
 * so every setting is named, typed and checked in one place. A bad variable
 * stops the start with a message naming it.
 */

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** A worker lane's slot count (`WORKER_CONCURRENCY_<LANE>`). */
const slots = (fallback: number) => z.coerce.number().int().min(1).max(256).default(fallback);

/** `WORKER_LANES`: known lane names, each once; an unknown or empty list is an error, not "all". */
function parseLanes(v: string, ctx: z.RefinementCtx): JobLane[] {
  const given = v.split(',').map((s) => s.trim());
  const names = [...new Set(given.filter(Boolean))];
  const unknown = names.filter((n) => !(JOB_LANES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `${unknown.length ? `unknown lane ${unknown.join(', ')}; ` : ''}must list lanes from ${JOB_LANES.join(', ')}`,
    });
    return [];
  }
  // Definition order, so logs and the heartbeat read the same whatever the spelling.
  return JOB_LANES.filter((l) => names.includes(l));
}

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL (${protocols.join(' or ')})` },
  );

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    /** PostgreSQL; when unset the app runs on embedded PGlite in DATA_DIR. */
    DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
    /** PostgreSQL: a statement running longer than this is cancelled (503 `database_timeout`); 0 = no limit. */
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
    /** PostgreSQL: waiting longer than this for a row or table lock cancels the statement; 0 = no limit. */
    DATABASE_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
    /** PostgreSQL: how long to wait for a connection, new or free in the pool, before 503 `database_unavailable`. */
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
    /** PostgreSQL read replica for audit reads (search, timelines, exports); needs DATABASE_URL. */
    DATABASE_REPLICA_URL: url(['postgres:', 'postgresql:']).optional(),
    /** PostgreSQL: connections in this process's pool. */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1_000).default(10),
    /** Where the embedded database and generated secrets live. */
    DATA_DIR: z.string().min(1).default('.data'),
    REDIS_URL: url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
    /** Public base URL of the app, used in links (Slack, webhooks). */
    APP_URL: url(['http:', 'https:']).optional(),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    /** Auth.js secret. Required with DATABASE_URL (auth/secret.ts : sharedSecret); generated into DATA_DIR for the embedded database. */
    AUTH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    ADMIN_EMAIL: z.email().optional(),
    ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
    OIDC_ISSUER: url(['https:', 'http:']).optional(),
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    OIDC_NAME: z.string().min(1).default('SSO'),
    /** Run the BullMQ worker inside the app process (the embedded start). */
    RUN_WORKER: bool.default(true),
    /** PostgreSQL: apply pending migrations at start (under Prisma's advisory lock); false = `npm run db:migrate` first. */
    MIGRATE_ON_START: bool.default(true),
    /** How often the relay looks for dispatched jobs Redis has lost (0 = never). */
    OUTBOX_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
    /** A dispatched job unsettled this long is looked up in Redis (and dispatched again if gone). */
    OUTBOX_RECONCILE_LEASE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(30_000),
    /** Worker slots per lane (each lane is its own queue; see jobs/definitions.ts : JOB_LANES). */
    WORKER_CONCURRENCY_EXPIRY: slots(DEFAULT_LANE_CONCURRENCY.expiry),
    WORKER_CONCURRENCY_FANOUT: slots(DEFAULT_LANE_CONCURRENCY.fanout),
    WORKER_CONCURRENCY_CALLBACKS: slots(DEFAULT_LANE_CONCURRENCY.callbacks),
    WORKER_CONCURRENCY_RESOLVER: slots(DEFAULT_LANE_CONCURRENCY.resolver),
    WORKER_CONCURRENCY_SLACK: slots(DEFAULT_LANE_CONCURRENCY.slack),
    WORKER_CONCURRENCY_MAINTENANCE: slots(DEFAULT_LANE_CONCURRENCY.maintenance),
    /** Comma-separated lanes this process's worker consumes (e.g. `callbacks` for a dedicated callbacks worker); unset = all. */
    WORKER_LANES: z
      .string()
      .optional()
      .transform((v, ctx) => (v === undefined ? undefined : parseLanes(v, ctx))),
    /** BullMQ key prefix of this installation's queues (default `checkpoint`); installations or benchmarks sharing one Redis each need their own. */
    QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1–64 letters, digits, "_", "." or "-"')
      .optional(),
    /** Webhook calls in flight per host and kind (callback, resolver), across every worker. */
    WEBHOOK_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
    /** A webhook whose recent p95 attempt latency is above this is flagged as a slow receiver. */
    WEBHOOK_SLOW_MS: z.coerce.number().int().min(1).max(600_000).default(2_000),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    /** Bearer token a Prometheus scraper sends to /api/metrics; unset = signed-in admins/auditors only. */
    METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
    /** Records older than this are deleted by the retention job (an AppSetting overrides it). */
    RECORDS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(365),
    /** Slack bot token (xoxb-…): posts ticket messages with Approve/Reject buttons and updates them. */
    SLACK_BOT_TOKEN: z
      .string()
      .regex(/^xox[a-z]-/, 'must be a Slack token (xoxb-…)')
      .optional(),
    /** Slack app signing secret: verifies /api/slack/interactions (no secret = every interaction refused). */
    SLACK_SIGNING_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Slack Web API base URL; only tests and stand-ins change it. */
    SLACK_API_URL: url(['https:', 'http:']).default('https://slack.com/api/'),
    /** Key that encrypts webhook signing secrets at rest. Required with DATABASE_URL, the same in every process; generated into DATA_DIR for the embedded database. */
    APP_ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Ed25519 key that signs receipts and tree heads (PKCS#8 PEM or a private JWK as JSON); unset = generated on first start and kept in the database. */
    SIGNING_KEY: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        if (v === undefined) return;
        try {
          parseSigningKey(v);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
    /** The kid of the active key a new SIGNING_KEY replaces (changing an imported key; see signing/keys.ts). */
    SIGNING_KEY_REPLACES: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a key id (kid) as /settings/signing-keys shows it')
      .optional(),
    /** How often the worker appends newly stored records and decisions to the transparency log. */
    LOG_APPEND_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(1_000),
    /** While the log grows, a signed tree head is issued at most this often (issue 13). */
    TREE_HEAD_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(10_000),
    /** How often the worker verifies the whole transparency log (0 = never; an admin can still run it). */
    LOG_VERIFY_INTERVAL_MS: z.coerce
      .number()
      .int()
      .refine((v) => v === 0 || (v >= 60_000 && v <= 604_800_000), 'must be 0 or 60000–604800000')
      .default(3_600_000),
    /** Every signed tree head is appended here (JSON lines); default `<DATA_DIR>/tree-heads.jsonl`. */
    TREE_HEAD_FILE: z.string().min(1).optional(),
    /** Development only: allow plain-http webhook URLs on loopback addresses. */
    WEBHOOKS_ALLOW_HTTP_LOOPBACK: bool.default(false),
    /** Comma-separated host names, IPs or CIDRs that webhooks may reach although private. */
    WEBHOOKS_ALLOW_HOSTS: z.string().default(''),
    /** Comma-separated IPs or CIDRs of reverse proxies whose X-Forwarded-For / Forwarded / X-Real-IP are believed. */
    TRUSTED_PROXIES: z
      .string()
      .default('')
      .superRefine((v, ctx) => {
        try {
          parseTrustedProxies(v);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
  })
  .superRefine((env, ctx) => {
    const oidc = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET];
    if (oidc.some(Boolean) && !oidc.every(Boolean)) {
      ctx.addIssue({
        code: 'custom',
        path: ['OIDC_ISSUER'],
        message: 'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together',
      });
    }
    if (env.DATABASE_REPLICA_URL && !env.DATABASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_REPLICA_URL'],
        message: 'needs DATABASE_URL (the embedded database has no replicas)',
      });
    }
    if (Boolean(env.ADMIN_EMAIL) !== Boolean(env.ADMIN_PASSWORD)) {
      ctx.addIssue({
        code: 'custom',
        path: ['ADMIN_PASSWORD'],
        message: 'ADMIN_EMAIL and ADMIN_PASSWORD must be set together',
      });
    }
  });

export type Config = z.infer<typeof schema> & { dataDir: string; embedded: boolean };

export class ConfigError extends Error {
  readonly code = 'config_invalid';
}

/** Parses an environment; throws ConfigError naming every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  // Empty strings mean "unset" (docker-compose passes `VAR=` through).
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0] ?? '?')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  return { ...cfg, dataDir: path.resolve(cfg.DATA_DIR), embedded: !cfg.DATABASE_URL };
}

/** Each lane's worker slots from the `WORKER_CONCURRENCY_<LANE>` variables. */
export function workerConcurrency(cfg: Config): Record<JobLane, number> {
  return {
    expiry: cfg.WORKER_CONCURRENCY_EXPIRY,
    fanout: cfg.WORKER_CONCURRENCY_FANOUT,
    callbacks: cfg.WORKER_CONCURRENCY_CALLBACKS,
    resolver: cfg.WORKER_CONCURRENCY_RESOLVER,
    slack: cfg.WORKER_CONCURRENCY_SLACK,
    maintenance: cfg.WORKER_CONCURRENCY_MAINTENANCE,
  };
}

let cached: Config | undefined;

/** The process configuration, parsed on first use. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
