import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { decodeProtectedHeader } from 'jose';
import { hashFromHex, sameHash } from '@/lib/proof';
import {
  notAuthenticDetail,
  publicJwksOf,
  unauthenticSigningKeys,
  verifyJws,
} from '@/lib/server/signing';
import { storedRoot } from '@/lib/server/transparency/store';
import {
  issueTreeHead,
  latestTreeHead,
  TREE_HEAD_TYP,
  type TreeHead,
} from '@/lib/server/transparency/tree-head';
import { finding, type IntegrityFinding } from '@/lib/verify/findings';
import { fileHeadProblem } from './integrity-head-file';

/**
 * The signed tree head the audit pages verify records against (issue 13
 * item 4): the newest one, its JWS checked with the deployment's published
 * keys (retired ones included) and its root recomputed from the stored tree
 * at its size, so a head rewritten in the database, or signed by a key the
 * deployment never published, is reported instead of trusted. Then it is
 * compared with the copy kept outside the database (the local tree-head
 * file): a database shell can rewrite every table consistently, sign with
 * a key of its own and plant that key, but not the file's heads.
 */

/** What a page shows of the head records were proved against. */
export type TreeHeadInfo = { size: number; kid: string; timestamp: number };

export type CheckedHead =
  | { valid: true; head: TreeHead; root: Uint8Array; info: TreeHeadInfo }
  | { valid: false; finding: IntegrityFinding }
  | { valid: null };

/**
 * The newest head, signed on demand when leaves up to `needIndex` are newer
 * than it (as the inclusion proof API does), so a record logged a moment ago
 * is provable at once rather than shown as pending until the next schedule.
 */
export async function headCovering(
  prisma: PrismaClient,
  needIndex: number | null,
): Promise<TreeHead | null> {
  const head = await latestTreeHead(prisma);
  if (needIndex === null || (head && head.size > needIndex)) return head;
  // A failure to sign leaves the newer rows unproved (not_logged), not the page broken.
  return (await issueTreeHead(prisma).catch(() => null)) ?? head;
}

function invalid(head: TreeHead, why: string): CheckedHead {
  return {
    valid: false,
    finding: finding(
      'tree_head_invalid',
      'tree_head',
      `The signed tree head of size ${head.size} (key ${head.kid || 'none'}) does not verify: ${why}.`,
    ),
  };
}

async function joseReason(prisma: PrismaClient, jws: string, error: unknown): Promise<string> {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_JWKS_NO_MATCHING_KEY') {
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(jws).kid;
    } catch {
      kid = undefined;
    }
    const planted = (await unauthenticSigningKeys(prisma)).find((k) => k.kid === kid);
    if (planted) return notAuthenticDetail(planted);
    return 'it is signed by a key this deployment never published';
  }
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return 'its signature is not valid';
  return 'its JWS cannot be read';
}

/** The head's signature, payload and root, checked; `valid: null` when there is no head. */
export async function checkTreeHead(
  prisma: PrismaClient,
  head: TreeHead | null,
): Promise<CheckedHead> {
  const jwks = await publicJwksOf(prisma);
  if (!head) {
    const lost = await fileHeadProblem(prisma, null, jwks);
    return lost ? { valid: false, finding: lost } : { valid: null };
  }
  let payload: unknown;
  let header: { kid?: string; typ?: string };
  try {
    ({ payload, header } = await verifyJws(head.jws, jwks));
  } catch (error) {
    return invalid(head, await joseReason(prisma, head.jws, error));
  }
  const p = payload as Partial<Record<'size' | 'root_hash' | 'timestamp' | 'kid', unknown>>;
  if (header.typ !== TREE_HEAD_TYP || header.kid !== p.kid) {
    return invalid(head, 'its header is not that of a tree head');
  }
  if (
    p.size !== head.size ||
    p.root_hash !== head.root_hash ||
    p.timestamp !== head.timestamp ||
    p.kid !== head.kid
  ) {
    return invalid(head, 'the signed payload differs from the stored size, root, time or key');
  }
  const root = hashFromHex(head.root_hash);
  let stored: Uint8Array | null = null;
  try {
    stored = await storedRoot(prisma, head.size);
  } catch {
    stored = null;
  }
  if (!root || !stored || !sameHash(root, stored)) {
    return invalid(head, `its root is not the root of the stored log at size ${head.size}`);
  }
  const copy = await fileHeadProblem(prisma, head, jwks);
  if (copy) return { valid: false, finding: copy };
  return {
    valid: true,
    head,
    root,
    info: { size: head.size, kid: head.kid, timestamp: head.timestamp },
  };
}
