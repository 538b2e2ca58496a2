import 'server-only';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '../config';
import { dbInfo } from '../db';
import { moduleLogger } from '../logger';
import { decryptSecret, encryptSecret, SecretDecryptError } from '../webhooks/encryption';
import { SigningKeyError } from './errors';
import {
  generateSigningJwk,
  keyIdOf,
  type PrivateSigningJwk,
  parseSigningKey,
  publicPart,
  SIGNING_ALG,
} from './key-material';

/**
 * The deployment's signing keys (table SigningKey): one active key signs,
 * retired keys stay published so that what they signed still verifies, and
 * no row is ever deleted. Every process reads the active key from the
 * database, so app instances and workers sign with the same one (issue 17).
 * The private JWK is stored encrypted with APP_ENCRYPTION_KEY, whose
 * fingerprint every process checks at start (db/key-fingerprints.ts).
 */

const log = moduleLogger('signing');

/** Serializes key activation across processes on one PostgreSQL (first start, import, rotation). */
const SIGNING_KEY_LOCK = 1936288617;

type Tx = Prisma.TransactionClient;

/** Who rotates: an admin in the UI, or an operator with `npm run keys:rotate`. */
export type SigningKeyActor = { kind: 'user'; id: string } | { kind: 'cli' };

export type SigningKeyRow = {
  kid: string;
  alg: string;
  createdBy: string;
  createdAt: Date;
  activatedAt: Date;
  retiredAt: Date | null;
};

const ROW = {
  kid: true,
  alg: true,
  createdBy: true,
  createdAt: true,
  activatedAt: true,
  retiredAt: true,
} as const;

async function lock(tx: Tx): Promise<void> {
  // PGlite has one process per directory: nothing to serialize against.
  if (dbInfo().kind === 'postgres') {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${SIGNING_KEY_LOCK})`);
  }
}

/** The key SIGNING_KEY names, or null when the variable is unset. */
export function configuredSigningKey(): PrivateSigningJwk | null {
  const raw = config().SIGNING_KEY;
  return raw ? parseSigningKey(raw) : null;
}

async function activeKid(tx: Tx | PrismaClient): Promise<string | null> {
  const row = await tx.signingKey.findFirst({
    where: { alg: SIGNING_ALG, retiredAt: null },
    select: { kid: true },
  });
  return row?.kid ?? null;
}

/**
 * Makes `jwk` the active key inside a locked transaction: the current active
 * key is retired (kept, still published), a key seen before is activated
 * again, a new one is stored. Returns the kids it retired, or null when `jwk`
 * was already active.
 */
async function activate(
  tx: Tx,
  jwk: PrivateSigningJwk,
  kid: string,
  createdBy: string,
  now: Date,
): Promise<string[] | null> {
  const current = await activeKid(tx);
  if (current === kid) return null;
  const retired = current ? [current] : [];
  // Retire first: the partial unique index allows one active key per alg.
  await tx.signingKey.updateMany({
    where: { alg: SIGNING_ALG, retiredAt: null },
    data: { retiredAt: now },
  });
  const known = await tx.signingKey.findUnique({ where: { kid }, select: { kid: true } });
  if (known) {
    await tx.signingKey.update({ where: { kid }, data: { retiredAt: null, activatedAt: now } });
  } else {
    await tx.signingKey.create({
      data: {
        kid,
        alg: SIGNING_ALG,
        publicJwk: publicPart(jwk),
        privateKey: encryptSecret(JSON.stringify(jwk)),
        createdBy,
        createdAt: now,
        activatedAt: now,
      },
    });
  }
  return retired;
}

/**
 * Start-up: with SIGNING_KEY set, that key becomes the active one (imported
 * when its kid is new; the previous active key is retired, still published).
 * Without it, a key is generated if none is active. Safe when several
 * processes start at once: they take turns under an advisory lock, and the
 * partial unique index would refuse a second active key in any case.
 *
 * Deterministic across processes (several instances, separate DATA_DIRs,
 * different environments), so the active key can never flip back and forth:
 * - a retired key never signs again: a SIGNING_KEY naming one refuses to
 *   start (`signing_key_retired`);
 * - SIGNING_KEY replaces a generated or rotated key, but not a key another
 *   process's SIGNING_KEY made active: that process refuses to start
 *   (`signing_key_conflict`) unless SIGNING_KEY_REPLACES names the active
 *   kid, the operator's explicit "change the key" (then old-key processes
 *   refuse at their next start, their key being retired).
 */
export async function ensureSigningKey(
  prisma: PrismaClient,
  envKey: PrivateSigningJwk | null = configuredSigningKey(),
  replaces: string | null = envKey ? (config().SIGNING_KEY_REPLACES ?? null) : null,
): Promise<{ kid: string; change: 'generated' | 'imported' | null }> {
  const jwk = envKey ?? null;
  const kid = jwk ? await keyIdOf(jwk) : null;
  return prisma.$transaction(async (tx) => {
    await lock(tx);
    const now = new Date();
    const current = await activeKid(tx);
    if (jwk && kid && current !== kid) await refuseConflict(tx, kid, current, replaces);
    if (!jwk || !kid) {
      if (current) return { kid: current, change: null };
      const fresh = await generateSigningJwk();
      const freshKid = await keyIdOf(fresh);
      await activate(tx, fresh, freshKid, 'system', now);
      await audit(tx, null, 'signing_key.generated', freshKid, { retired: [] });
      log.info({ kid: freshKid }, 'generated the signing key (first start)');
      return { kid: freshKid, change: 'generated' };
    }
    const retired = await activate(tx, jwk, kid, 'SIGNING_KEY', now);
    if (retired === null) return { kid, change: null };
    await audit(tx, null, 'signing_key.imported', kid, { retired, source: 'SIGNING_KEY' });
    log.info({ kid, retired }, 'SIGNING_KEY is now the active signing key');
    return { kid, change: 'imported' };
  });
}

/** Throws when SIGNING_KEY (`kid`) may not replace the active key `current` (see ensureSigningKey). */
async function refuseConflict(
  tx: Tx,
  kid: string,
  current: string | null,
  replaces: string | null,
): Promise<void> {
  const known = await tx.signingKey.findUnique({ where: { kid }, select: { retiredAt: true } });
  if (known?.retiredAt) {
    throw new SigningKeyError(
      'signing_key_retired',
      `SIGNING_KEY is key ${kid}, which was retired at ${known.retiredAt.toISOString()}: a retired key never signs again. Put a new key in SIGNING_KEY (or unset it to use the active key ${current ?? '(none)'}).`,
    );
  }
  if (!current) return;
  const active = await tx.signingKey.findUnique({
    where: { kid: current },
    select: { createdBy: true },
  });
  if (active?.createdBy === 'SIGNING_KEY' && replaces !== current) {
    throw new SigningKeyError(
      'signing_key_conflict',
      `SIGNING_KEY is key ${kid}, but another process's SIGNING_KEY made ${current} the active key: one key signs for the deployment. Give every process the same SIGNING_KEY; to change it, set SIGNING_KEY_REPLACES=${current} with the new key.`,
    );
  }
}

/**
 * Generates a new key and makes it the active one; the old key is retired
 * (kept and published, never deleted). Refused while SIGNING_KEY is set:
 * the environment decides which key signs, and the next start would put it
 * back anyway.
 */
export async function rotateSigningKey(
  prisma: PrismaClient,
  actor: SigningKeyActor,
  opts: { fromEnv?: boolean } = {},
): Promise<{ kid: string; retired: string[] }> {
  if (opts.fromEnv ?? Boolean(config().SIGNING_KEY)) {
    throw new SigningKeyError(
      'signing_key_from_env',
      'SIGNING_KEY is set, so the environment decides which key signs: to rotate, put a new key in SIGNING_KEY and restart every process.',
    );
  }
  const jwk = await generateSigningJwk();
  const kid = await keyIdOf(jwk);
  const createdBy = actor.kind === 'user' ? `user:${actor.id}` : 'cli';
  const retired = await prisma.$transaction(async (tx) => {
    await lock(tx);
    const gone = (await activate(tx, jwk, kid, createdBy, new Date())) ?? [];
    await audit(tx, actor.kind === 'user' ? actor.id : null, 'signing_key.rotated', kid, {
      retired: gone,
      via: actor.kind === 'user' ? 'admin' : 'cli',
    });
    return gone;
  });
  log.info({ kid, retired }, 'rotated the signing key');
  return { kid, retired };
}

async function audit(
  tx: Tx,
  actorId: string | null,
  action: string,
  kid: string,
  details: Record<string, unknown>,
): Promise<void> {
  await tx.auditEvent.create({
    data: {
      actorId,
      actorKind: actorId ? 'user' : 'system',
      action,
      targetType: 'signing_key',
      targetId: kid,
      details: details as Prisma.InputJsonObject,
    },
  });
}

/** Every key, the active one first, then newest first; never the private half. */
export async function listSigningKeys(prisma: PrismaClient): Promise<SigningKeyRow[]> {
  const rows = await prisma.signingKey.findMany({ select: ROW, orderBy: { createdAt: 'desc' } });
  return [...rows.filter((r) => !r.retiredAt), ...rows.filter((r) => r.retiredAt)];
}

/** The active key's kid and private JWK; throws `signing_key_unreadable` when it does not decrypt. */
export async function readActiveSigningKey(
  prisma: PrismaClient,
): Promise<{ kid: string; jwk: PrivateSigningJwk } | null> {
  const row = await prisma.signingKey.findFirst({
    where: { alg: SIGNING_ALG, retiredAt: null },
    select: { kid: true, privateKey: true, publicJwk: true },
  });
  if (!row) return null;
  let jwk: PrivateSigningJwk;
  try {
    jwk = parseSigningKey(decryptSecret(row.privateKey));
  } catch (err) {
    throw new SigningKeyError(
      'signing_key_unreadable',
      err instanceof SecretDecryptError
        ? `the active signing key ${row.kid} cannot be decrypted with this process's APP_ENCRYPTION_KEY (the key changed or the row was altered); rotate the signing key`
        : `the active signing key ${row.kid} decrypts to something that is not an Ed25519 private key; rotate the signing key`,
    );
  }
  // A row whose private half was swapped for another key's would sign under a kid it does not own.
  // …and one whose published half was swapped would sign what its JWKS entry cannot verify.
  if ((await keyIdOf(jwk)) !== row.kid || (row.publicJwk as { x?: unknown })?.x !== jwk.x) {
    throw new SigningKeyError(
      'signing_key_unreadable',
      `the stored private key of ${row.kid} is not that key (the row was altered); rotate the signing key`,
    );
  }
  return { kid: row.kid, jwk };
}
