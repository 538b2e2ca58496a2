import {
  type CompactJWSHeaderParameters,
  compactVerify,
  createLocalJWKSet,
  decodeProtectedHeader,
  type JSONWebKeySet,
} from 'jose';

/**
 * Offline checks of the deployment's compact JWSs (signed tree heads and
 * approval receipts) against a JWKS the verifier was given: EdDSA only, the
 * key chosen by the header's `kid` among the given keys (never a key the
 * JWS carries), and the `typ` of what is expected, so a receipt cannot pass
 * for a tree head or the reverse. Pure: no database, no network.
 */

export const TREE_HEAD_TYP = 'checkpoint-tree-head+jws';
export const RECEIPT_TYP = 'checkpoint-receipt+jws';

export type JwsCheck =
  | { ok: true; kid: string; payload: Record<string, unknown> }
  | {
      ok: false;
      /** `jws_malformed`, `jws_wrong_type`, `jws_key_unknown`, `jws_signature_invalid`. */
      code: string;
      message: string;
    };

export async function verifyCompactJws(
  jws: string,
  jwks: JSONWebKeySet,
  typ: string,
): Promise<JwsCheck> {
  let header: CompactJWSHeaderParameters;
  try {
    header = decodeProtectedHeader(jws) as CompactJWSHeaderParameters;
  } catch {
    return { ok: false, code: 'jws_malformed', message: 'not a compact JWS' };
  }
  if (header.typ !== typ) {
    return {
      ok: false,
      code: 'jws_wrong_type',
      message: `typ is ${JSON.stringify(header.typ ?? null)}, not ${typ}`,
    };
  }
  const kid = typeof header.kid === 'string' ? header.kid : '';
  if (!jwks.keys.some((k) => k.kid === kid)) {
    return {
      ok: false,
      code: 'jws_key_unknown',
      message: `signed with key ${JSON.stringify(kid)}, which is not in the given JWKS`,
    };
  }
  let payload: unknown;
  try {
    const verified = await compactVerify(jws, createLocalJWKSet(jwks), { algorithms: ['EdDSA'] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
      return {
        ok: false,
        code: 'jws_signature_invalid',
        message: `the signature does not verify with key ${kid}`,
      };
    }
    return {
      ok: false,
      code: code === 'ERR_JWKS_NO_MATCHING_KEY' ? 'jws_key_unknown' : 'jws_malformed',
      message: err instanceof Error ? err.message : 'does not verify',
    };
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return { ok: false, code: 'jws_malformed', message: 'the payload is not a JSON object' };
  }
  return { ok: true, kid, payload: payload as Record<string, unknown> };
}

/** The payload of a compact JWS, NOT verified (to read a tree head before its signature is checked). */
export function unverifiedPayload(jws: string): Record<string, unknown> | null {
  const part = jws.split('.')[1];
  if (part === undefined) return null;
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** A signed tree head's payload (issue 13 item 3). */
export type TreeHeadClaims = { size: number; root_hash: string; timestamp: number; kid: string };

export function treeHeadClaims(payload: Record<string, unknown> | null): TreeHeadClaims | null {
  if (!payload) return null;
  const { size, root_hash, timestamp, kid } = payload;
  if (
    !Number.isSafeInteger(size) ||
    (size as number) < 0 ||
    typeof root_hash !== 'string' ||
    !/^[0-9a-f]{64}$/.test(root_hash) ||
    !Number.isSafeInteger(timestamp) ||
    typeof kid !== 'string'
  ) {
    return null;
  }
  return { size: size as number, root_hash, timestamp: timestamp as number, kid };
}

/** Verifies a signed tree head: signature, typ, key, and a payload of the right shape naming its own key. */
export async function verifyTreeHead(
  jws: string,
  jwks: JSONWebKeySet,
): Promise<{ ok: true; head: TreeHeadClaims } | { ok: false; code: string; message: string }> {
  const checked = await verifyCompactJws(jws, jwks, TREE_HEAD_TYP);
  if (!checked.ok) return checked;
  const head = treeHeadClaims(checked.payload);
  if (!head) return { ok: false, code: 'jws_malformed', message: 'the payload is not a tree head' };
  if (head.kid !== checked.kid) {
    return {
      ok: false,
      code: 'jws_malformed',
      message: `the payload names key ${head.kid} but key ${checked.kid} signed it`,
    };
  }
  return { ok: true, head };
}

/** Reads a JWKS document; null when it has no usable `keys` array. */
export function parseJwks(value: unknown): JSONWebKeySet | null {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) return null;
  if (!keys.every((k) => k && typeof k === 'object' && !Array.isArray(k))) return null;
  return { keys: keys as JSONWebKeySet['keys'] };
}
