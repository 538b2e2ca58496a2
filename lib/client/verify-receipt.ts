import type { ApprovalResolution } from '@checkpoint/agent-hooks';

/**
 * Checking Checkpoint's signed approval receipts (issue 13; the format is
 * docs/receipts.md) with WebCrypto's Ed25519 alone, so the client still
 * depends on no package: Node 20.19 and current browsers verify Ed25519
 * without a flag. A receipt is a compact JWS (RFC 7515) whose header is
 * `{alg: 'EdDSA', kid, typ: 'checkpoint-receipt+jws'}`.
 */

export const RECEIPT_TYP = 'checkpoint-receipt+jws';

/** A public key as the app's /.well-known/jwks.json serves it. */
export interface ReceiptJwk {
  kty: string;
  crv?: string;
  x?: string;
  kid?: string;
  alg?: string;
}

/** The claims a receipt carries (docs/receipts.md). */
export interface ReceiptClaims {
  iss: string;
  ticket_id: string;
  host_id: string;
  request_id: string | null;
  interception_point: string;
  context_identity: string | null;
  outcome: 'approve' | 'reject' | 'unresolved';
  transform?: { path: string; value_sha256: string };
  decider: { kind: string; user_id: string | null; email: string | null; auth: string };
  decided_at: string;
  iat: number;
}

export type ReceiptVerdict =
  | { ok: true; kid: string; claims: ReceiptClaims }
  | { ok: false; reason: string };

/** Looks a kid up in the deployment's JWKS; `refresh` asks for a fresh copy (a rotation since). */
export type KeyLookup = (kid: string, refresh: boolean) => Promise<ReceiptJwk | undefined>;

const enc = new TextEncoder();

function base64url(s: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('not base64url');
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function json(bytes: Uint8Array): unknown {
  return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
}

/** `sha256:<hex>` of the compact JWS's bytes: the evidence's `artefact` (§5.3). */
export async function receiptArtefact(jws: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(jws)));
  return `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Verifies `jws` as a receipt for `resolution` on ticket `ticketId`: the
 * EdDSA signature under the published key its kid names, the receipt type,
 * and that its claims say what the resolution says (ticket, context
 * identity, outcome). When the verdict's evidence (§5.3) names an artefact,
 * it must be this receipt's digest. Never throws.
 */
export async function verifyReceipt(
  jws: string,
  expect: { ticketId: string; resolution: ApprovalResolution },
  lookup: KeyLookup,
): Promise<ReceiptVerdict> {
  try {
    const parts = jws.split('.');
    if (parts.length !== 3) return { ok: false, reason: 'receipt_malformed' };
    const [h, p, s] = parts;
    const header = json(base64url(h)) as {
      alg?: unknown;
      kid?: unknown;
      typ?: unknown;
      crit?: unknown;
    };
    if (header.alg !== 'EdDSA' || typeof header.kid !== 'string' || header.crit !== undefined) {
      return { ok: false, reason: 'receipt_malformed' };
    }
    if (header.typ !== RECEIPT_TYP) return { ok: false, reason: 'receipt_wrong_type' };
    let jwk: ReceiptJwk | undefined;
    try {
      jwk = (await lookup(header.kid, false)) ?? (await lookup(header.kid, true));
    } catch {
      return { ok: false, reason: 'receipt_keys_unavailable' };
    }
    if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
      return { ok: false, reason: 'receipt_key_unknown' };
    }
    const key = await crypto.subtle.importKey(
      'jwk',
      { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
      { name: 'Ed25519' },
      false,
      ['verify'],
    );
    const signed = enc.encode(`${h}.${p}`);
    if (!(await crypto.subtle.verify({ name: 'Ed25519' }, key, base64url(s), signed))) {
      return { ok: false, reason: 'receipt_signature_invalid' };
    }
    const claims = json(base64url(p)) as ReceiptClaims;
    const r = expect.resolution;
    if (
      claims?.ticket_id !== expect.ticketId ||
      claims.context_identity !== r.context_identity ||
      claims.outcome !== r.outcome
    ) {
      return { ok: false, reason: 'receipt_claims_mismatch' };
    }
    const artefact = (r.verdict?.evidence as { artefact?: unknown } | undefined)?.artefact;
    if (artefact !== undefined && artefact !== (await receiptArtefact(jws))) {
      return { ok: false, reason: 'receipt_evidence_mismatch' };
    }
    return { ok: true, kid: header.kid, claims };
  } catch {
    return { ok: false, reason: 'receipt_malformed' };
  }
}

/**
 * A KeyLookup over one JWKS URL, cached for `ttlMs`; a kid it does not hold
 * fetches again at most once per `ttlMs / 10` (a rotation published since).
 */
export function jwksKeyLookup(url: string, doFetch: typeof fetch, ttlMs = 300_000): KeyLookup {
  let keys: ReceiptJwk[] | undefined;
  let fetchedAt = 0;
  const load = async () => {
    const res = await doFetch(url, {
      headers: { accept: 'application/jwk-set+json, application/json' },
    });
    if (!res.ok) throw new Error(`JWKS: HTTP ${res.status}`);
    const body = (await res.json()) as { keys?: unknown };
    if (!Array.isArray(body?.keys)) throw new Error('JWKS: no keys');
    keys = body.keys as ReceiptJwk[];
    fetchedAt = Date.now();
  };
  return async (kid, refresh) => {
    const age = Date.now() - fetchedAt;
    if (!keys || age > ttlMs || (refresh && age > ttlMs / 10)) await load();
    return keys?.find((k) => k.kid === kid);
  };
}
