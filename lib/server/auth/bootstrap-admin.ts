import 'server-only';
import { Role } from '@/lib/generated/prisma/enums';
import { config } from '@/lib/server/config';
import { db, dbInfo } from '@/lib/server/db';
import { normalizeEmail } from './credentials';
import { generatePassword, hashPassword } from './password';

/** Where the first admin signs in when neither ADMIN_EMAIL nor ADMIN_PASSWORD is set. */
export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

/** Serializes the first-admin check of instances starting together on one PostgreSQL. */
const INITIAL_ADMIN_LOCK_KEY = 1667982692;

const ENABLED_ADMIN_SQL = `SELECT id::text AS id FROM "User" WHERE 'admin'::"Role" = ANY(roles) AND NOT disabled LIMIT 1`;

/**
 * First run: when no enabled admin exists, create one from ADMIN_EMAIL and
 * ADMIN_PASSWORD, or as admin@localhost with a generated password printed
 * once to stdout. When an enabled admin exists this does nothing (and
 * prints nothing), so the password is never shown again.
 */
export async function ensureInitialAdmin(): Promise<void> {
  const prisma = await db();
  // Raw SQL: the PGlite adapter rejects Prisma's `has` filter on enum arrays.
  const admins = await prisma.$queryRawUnsafe<{ id: string }[]>(ENABLED_ADMIN_SQL);
  if (admins.length > 0) return;

  const cfg = config();
  const email = normalizeEmail(cfg.ADMIN_EMAIL ?? DEFAULT_ADMIN_EMAIL);
  const generated = cfg.ADMIN_PASSWORD ? null : generatePassword();
  const passwordHash = await hashPassword(cfg.ADMIN_PASSWORD ?? (generated as string));
  // A generated password was printed to a log: it must be replaced at the
  // first sign-in. One the operator chose (ADMIN_PASSWORD) need not be.
  const mustChangePassword = generated !== null;

  let created = false;
  try {
    await prisma.$transaction(async (tx) => {
      // Several instances starting at once on PostgreSQL: one at a time past
      // here, and each looks again, so a later one finds the admin the first
      // created instead of resetting its password (and printing another).
      // PGlite has one process per directory and boots once.
      if (dbInfo().kind === 'postgres') {
        await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${INITIAL_ADMIN_LOCK_KEY})`);
        const now = await tx.$queryRawUnsafe<{ id: string }[]>(ENABLED_ADMIN_SQL);
        if (now.length > 0) return;
      }
      created = true;
      const existing = await tx.user.findUnique({
        where: { email },
        select: { id: true, roles: true },
      });
      // A non-admin (or disabled admin) already holds the email: promote and
      // re-enable it, since nobody could otherwise ever administer the app.
      const user = existing
        ? await tx.user.update({
            where: { id: existing.id },
            data: {
              roles: [...new Set([Role.admin, ...existing.roles])],
              disabled: false,
              passwordHash,
              mustChangePassword,
            },
            select: { id: true },
          })
        : await tx.user.create({
            data: {
              email,
              name: 'Administrator',
              roles: [Role.admin],
              passwordHash,
              mustChangePassword,
            },
            select: { id: true },
          });
      await tx.auditEvent.create({
        data: {
          actorKind: 'system',
          action: existing ? 'user.admin_restored' : 'user.created',
          targetType: 'user',
          targetId: user.id,
          details: { email, roles: [Role.admin], reason: 'initial_admin' },
        },
      });
    });
  } catch (err) {
    // Another process (app and worker booting together) won the race.
    if ((err as { code?: string }).code === 'P2002') return;
    throw err;
  }

  if (created && generated) printOnce(email, generated, signInUrl(cfg.APP_URL, cfg.PORT));
}

function signInUrl(appUrl: string | undefined, port: number): string {
  return new URL('/sign-in', appUrl ?? `http://localhost:${port}`).toString();
}

function printOnce(email: string, password: string, url: string): void {
  const lines = [
    'Checkpoint: first administrator created',
    '',
    `  Sign in at  ${url}`,
    `  Email       ${email}`,
    `  Password    ${password}`,
    '',
    'This password is shown only once; you choose a new one at the first',
    'sign-in. Or set ADMIN_EMAIL and ADMIN_PASSWORD before the first start.',
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const bar = '═'.repeat(width);
  const body = lines.map((l) => `║ ${l.padEnd(width - 1)}║`).join('\n');
  process.stdout.write(`\n╔${bar}╗\n${body}\n╚${bar}╝\n\n`);
}
