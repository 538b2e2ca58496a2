import 'server-only';
import type { JSONWebKeySet } from 'jose';
import { publicJwks, verifyJws } from '../signing/jws';
import { RECEIPT_TYP, type ReceiptClaims } from './claims';

export type ReceiptCheck =
  | { ok: true; kid: string; claims: ReceiptClaims }
  | {
      ok: false;
      /** Stable: `receipt_malformed`, `receipt_wrong_type`, `receipt_key_unknown`, `receipt_signature_invalid`, `receipt_ticket_mismatch`. */
      code: string;
      message: string;
    };

/**
 * Verifies a receipt as an outside verifier would: the compact JWS against
 * the published keys (active and retired, so a receipt signed before a
 * rotation still verifies), EdDSA only, `typ` a receipt's, and, when given,
 * that it is about `ticketId`.
 */
export async function verifyReceipt(
  jws: string,
  opts: { ticketId?: string; jwks?: JSONWebKeySet } = {},
): Promise<ReceiptCheck> {
  let verified: Awaited<ReturnType<typeof verifyJws>>;
  try {
    verified = await verifyJws(jws, opts.jwks ?? (await publicJwks()));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_JWKS_NO_MATCHING_KEY') {
      return { ok: false, code: 'receipt_key_unknown', message: 'No published key has its kid.' };
    }
    if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
      return {
        ok: false,
        code: 'receipt_signature_invalid',
        message: 'The signature does not verify.',
      };
    }
    return {
      ok: false,
      code: 'receipt_malformed',
      message: `Not a verifiable compact JWS: ${err instanceof Error ? err.message : 'invalid'}`,
    };
  }
  if (verified.header.typ !== RECEIPT_TYP) {
    return { ok: false, code: 'receipt_wrong_type', message: `typ is not ${RECEIPT_TYP}.` };
  }
  const claims = verified.payload as ReceiptClaims;
  if (opts.ticketId !== undefined && claims?.ticket_id !== opts.ticketId) {
    return {
      ok: false,
      code: 'receipt_ticket_mismatch',
      message: 'The receipt is about another ticket.',
    };
  }
  return { ok: true, kid: String(verified.header.kid), claims };
}

/** The claims and kid of a receipt, unverified (for display next to the verify button). */
export function decodeReceipt(jws: string): { kid: string | null; claims: ReceiptClaims } | null {
  const [h, p] = jws.split('.');
  try {
    const header = JSON.parse(Buffer.from(h ?? '', 'base64url').toString('utf8'));
    const claims = JSON.parse(Buffer.from(p ?? '', 'base64url').toString('utf8'));
    return { kid: typeof header?.kid === 'string' ? header.kid : null, claims };
  } catch {
    return null;
  }
}
