import 'server-only';
import { createHmac } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { type SharedKeyName, SharedKeyError, sharedSecret } from '../auth/secret';

/**
 * Every process on one database must hold the same APP_ENCRYPTION_KEY (a
 * worker decrypts the webhook secrets the app encrypted) and AUTH_SECRET (any
 * app replica verifies any session). The first process to start records a
 * fingerprint of each; a later one with a different key refuses to start,
 * naming the key, instead of failing deliveries or sign-ins one by one.
 *
 * The fingerprint is HMAC-SHA256 of a fixed label under the key: it tells
 * keys apart without being the key, and unlike a plain hash it gives no
 * offline test for guessed keys without the key itself.
 */

export const FINGERPRINT_LABEL = 'checkpoint key fingerprint v1';

/** The keys checked at start, in the order their errors are reported. */
export const SHARED_KEYS: readonly SharedKeyName[] = ['APP_ENCRYPTION_KEY', 'AUTH_SECRET'];

/** Hex HMAC-SHA256(key, FINGERPRINT_LABEL). */
export function keyFingerprint(key: string): string {
  return createHmac('sha256', key).update(FINGERPRINT_LABEL, 'utf8').digest('hex');
}

/** What the messages show of a fingerprint: enough to compare by eye. */
function short(fingerprint: string): string {
  return `${fingerprint.slice(0, 16)}…`;
}

/**
 * Records the fingerprint of each named key the first time any process
 * starts on this database, and throws SharedKeyError (`key_mismatch`) when
 * this process holds a different key than the one recorded, or
 * (`key_required`, from sharedSecret) when a required key is unset.
 */
export async function checkKeyFingerprints(
  prisma: PrismaClient,
  names: readonly SharedKeyName[] = SHARED_KEYS,
): Promise<void> {
  for (const name of names) {
    const fingerprint = keyFingerprint(sharedSecret(name));
    // First writer wins, also when two processes start at the same moment.
    await prisma.keyFingerprint.createMany({ data: [{ name, fingerprint }], skipDuplicates: true });
    const recorded = await prisma.keyFingerprint.findUniqueOrThrow({
      where: { name },
      select: { fingerprint: true, createdAt: true },
    });
    if (recorded.fingerprint !== fingerprint) {
      throw new SharedKeyError(
        'key_mismatch',
        `${name} differs from the one this database was set up with ` +
          `(fingerprint ${short(recorded.fingerprint)}, recorded ${recorded.createdAt.toISOString()}; ` +
          `this process has ${short(fingerprint)}). Start every process (the app and each worker) ` +
          `with the same ${name}. To replace the key on purpose, see "Keys every process shares" in the README.`,
      );
    }
  }
}
