import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';

export const BUILT_IN_HOST_NAME = 'embedded';

export class BuiltInHostError extends Error {
  readonly code = 'builtin_host_name_taken';
}

/**
 * Makes sure the in-process host of the embedded engine exists and returns
 * its id. Safe when several processes boot at once: the insert skips on the
 * unique name, and the row is then read back.
 */
export async function ensureBuiltInHost(db: PrismaClient): Promise<{ id: string }> {
  const existing = await db.host.findFirst({ where: { builtIn: true }, select: { id: true } });
  if (existing) return existing;
  await db.host.createMany({
    data: [
      {
        name: BUILT_IN_HOST_NAME,
        builtIn: true,
        description: 'The engine embedded in this app (in-process emissions).',
      },
    ],
    skipDuplicates: true,
  });
  const row = await db.host.findFirst({ where: { builtIn: true }, select: { id: true } });
  if (!row) {
    // A machine host was created with the reserved name before the built-in
    // one existed; renaming it is a person's decision, not boot's.
    throw new BuiltInHostError(
      `a host named "${BUILT_IN_HOST_NAME}" exists and is not the built-in host; rename it`,
    );
  }
  return row;
}
