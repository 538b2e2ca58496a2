// Shared plumbing of the benchmarks that need a database: a scratch
// PostgreSQL database per run (created, then dropped whatever happens),
// percentiles, and a logger that keeps stdout clean for `--json`.
import pg from 'pg';

const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * Creates a scratch database named `<prefix>_<time>`, runs `fn` with its
 * URL, and drops it afterwards (also when `fn` throws).
 */
export async function withScratchDatabase<T>(
  prefix: string,
  fn: (url: string) => Promise<T>,
): Promise<T> {
  const name = `${prefix}_${Date.now()}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  await admin(`CREATE DATABASE "${name}"`);
  try {
    return await fn(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
  }
}

/** The p-th percentile (nearest rank) of an ascending array. */
export function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const round = (n: number) => Math.round(n * 10) / 10;

/** Progress goes to stderr, and nowhere with `--json` (stdout is the one JSON object). */
export function benchLogger(jsonOnly: boolean) {
  return (...a: unknown[]) => {
    if (!jsonOnly) console.error(...a);
  };
}
