import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '@/lib/server/db/executors';
import { applyMigrations, defaultMigrationsDir } from '@/lib/server/migrate';

/**
 * Issue item 5: Slack ids typed in on the profile before links were
 * confirmed must not count as confirmed. The migration turns each into a
 * pending request that can never be confirmed and clears User.slackUserId.
 */

const MINE = '20261203110000_slack_link_verification';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ck-slack-link-migration-'));
let db: PGlite;

/** A migrations dir holding the migrations up to (`through`) or before ours. */
function dirWith(name: string, keep: (m: string) => boolean): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  for (const entry of readdirSync(defaultMigrationsDir())) {
    if (entry.endsWith('.toml') || keep(entry)) {
      cpSync(path.join(defaultMigrationsDir(), entry), path.join(dir, entry), { recursive: true });
    }
  }
  return dir;
}

beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe(`migration ${MINE}`, () => {
  it('self-asserted Slack ids become expired, unconfirmable requests; none stays linked', async () => {
    const before = dirWith('before', (m) => /^\d{14}_/.test(m) && m < MINE);
    await applyMigrations(pgliteExecutor(db), { dir: before });
    await db.exec(`
      INSERT INTO "User" (id, email, roles, "slackUserId", "updatedAt") VALUES
        ('00000000-0000-4000-8000-000000000001', 'rita@example.com', '{reviewer}', 'U0RITA01', now()),
        ('00000000-0000-4000-8000-000000000002', 'nolink@example.com', '{reviewer}', NULL, now());
    `);
    const through = dirWith('through', (m) => /^\d{14}_/.test(m) && m <= MINE);
    expect((await applyMigrations(pgliteExecutor(db), { dir: through })).applied).toEqual([MINE]);

    const users = await db.query<{
      email: string;
      slackUserId: string | null;
      slackLinkedAt: Date | null;
    }>('SELECT email, "slackUserId", "slackLinkedAt" FROM "User" ORDER BY email');
    expect(users.rows).toEqual([
      { email: 'nolink@example.com', slackUserId: null, slackLinkedAt: null },
      { email: 'rita@example.com', slackUserId: null, slackLinkedAt: null },
    ]);
    const requests = await db.query<{
      userId: string;
      slackUserId: string;
      tokenHash: string;
      expired: boolean;
    }>(
      'SELECT "userId", "slackUserId", "tokenHash", "expiresAt" <= now() AS expired FROM "SlackLinkRequest"',
    );
    expect(requests.rows).toHaveLength(1);
    const [r] = requests.rows;
    expect(r.userId).toBe('00000000-0000-4000-8000-000000000001');
    expect(r.slackUserId).toBe('U0RITA01');
    expect(r.expired).toBe(true);
    // No SHA-256 hex of any token can equal it.
    expect(r.tokenHash).toMatch(/^unissued:/);
    expect(r.tokenHash).not.toMatch(/^[0-9a-f]{64}$/);
  });
});
