import 'server-only';
import { auditDb } from '@/lib/server/db/audit-db';

/**
 * Whether text in this database sorts by code point (the "C" family of
 * collations). Only then is a reason prefix exactly the range
 * `[prefix, successor(prefix))`, which the `reason` btree serves; a LIKE
 * alone cannot use that index outside `text_pattern_ops`, which Prisma
 * cannot declare. Linguistic collations ignore punctuation at the first
 * level, so there the range could drop matches: they get the LIKE alone.
 */

const slot = globalThis as typeof globalThis & { __auditCodepointOrder?: Promise<boolean> };

export function sortsByCodePoint(): Promise<boolean> {
  if (!slot.__auditCodepointOrder) {
    const check = (async () => {
      const prisma = await auditDb();
      const [row] = await prisma.$queryRaw<{ collate: string }[]>`
        SELECT datcollate AS collate FROM pg_database WHERE datname = current_database()`;
      return /^(C|POSIX|C\.UTF-?8)$/i.test(row?.collate ?? '');
    })();
    slot.__auditCodepointOrder = check;
    // A failed check is not cached; the LIKE alone is always correct meanwhile.
    check.catch(() => {
      slot.__auditCodepointOrder = undefined;
    });
  }
  return slot.__auditCodepointOrder.catch(() => false);
}

/**
 * The smallest string above every string that starts with `prefix`, in
 * code point order; null when there is none (empty, or only U+10FFFF).
 */
export function prefixSuccessor(prefix: string): string | null {
  const points = Array.from(prefix, (c) => c.codePointAt(0) as number);
  while (points.length > 0) {
    const last = points.pop() as number;
    if (last < 0x10ffff) {
      // Surrogates are not characters; PostgreSQL text never holds them.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return String.fromCodePoint(...points, next);
    }
  }
  return null;
}
