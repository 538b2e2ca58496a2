import 'server-only';
import { createHash } from 'node:crypto';
import { canonicalJson, DEFAULTS, utf8Length } from '@checkpoint/agent-hooks';
import { config } from '../config';

/** The deployment's public origin: APP_URL, else localhost on PORT (as Slack links do). */
export function deploymentOrigin(): string {
  const cfg = config();
  return (cfg.APP_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, '');
}

/** Absolute URL of a ticket's receipt (GET /api/v1/approvals/{id}/receipt). */
export function receiptUrl(ticketId: string, origin = deploymentOrigin()): string {
  return `${origin}/api/v1/approvals/${ticketId}/receipt`;
}

/** Absolute URL of the JWKS the receipt verifies against. */
export function jwksUrl(origin = deploymentOrigin()): string {
  return `${origin}/.well-known/jwks.json`;
}

/** A type, not an interface: it must be assignable to a verdict's `evidence` record. */
export type ReceiptEvidence = {
  /** `sha256:` + lowercase hex of SHA-256 over the compact JWS's ASCII bytes. */
  artefact: string;
  verification_pointers: { receipt: string; jwks: string };
};

/** `sha256:<hex>` of the compact JWS (its bytes are ASCII: base64url and dots). */
export function receiptArtefact(jws: string): string {
  return `sha256:${createHash('sha256').update(jws, 'ascii').digest('hex')}`;
}

/**
 * The verdict's `evidence` member (§5.3) pointing at the receipt: the
 * artefact's digest and where to fetch it and its keys. The host never
 * dereferences the pointers (§5.3) but carries them into its records, so an
 * auditor reading the host's own audit sink finds the receipt. Null when it
 * would pass the §5.3 size cap (an absurdly long APP_URL): the resolution
 * then goes out without it rather than failing §5 validation at the host.
 */
export function receiptEvidence(ticketId: string, jws: string): ReceiptEvidence | null {
  const origin = deploymentOrigin();
  const evidence: ReceiptEvidence = {
    artefact: receiptArtefact(jws),
    verification_pointers: { receipt: receiptUrl(ticketId, origin), jwks: jwksUrl(origin) },
  };
  return utf8Length(canonicalJson(evidence)) <= DEFAULTS.evidenceMaxBytes ? evidence : null;
}
