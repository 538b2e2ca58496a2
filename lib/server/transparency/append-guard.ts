import 'server-only';
import { canonicalJson } from '@checkpoint/agent-hooks';
import type { JSONWebKeySet } from 'jose';
import type { ReceiptClaims } from '@/lib/server/receipts/claims';
import { verifyReceipt } from '@/lib/server/receipts/verify';
import { chainHashOf } from '@/lib/server/records/chain';
import { type SealKey, sealV2Verifies, sealVerifies } from '@/lib/server/records/seal';
import { INGEST_TX_TIMEOUT_MS } from '@/lib/server/records/ingest';
import { isHostFailure, sha256Hex } from '@/lib/server/records/validate-record';
import {
  type PendingDecision,
  type PendingHead,
  type PendingRecord,
  type Refusal,
  type SessionContext,
  sessionKey,
} from './backlog';

/**
 * The appender's guard (issue 13 item 3): someone with a database shell can
 * INSERT a row into InterceptionRecord or Decision; logging it would make it
 * provable. Before a row is appended it must look like what ingest or a
 * decision writes, and nothing else. SHA-256 links and chain heads can be
 * recomputed by anyone; the ingest seal (records/seal.ts) cannot without
 * APP_ENCRYPTION_KEY, so a record row must carry a valid one (rows older
 * than seals excepted, backlog.ts preSealBound). docs/transparency.md lists
 * what this does not catch.
 */

/** Why a row was refused; stable strings, stored in LogRefusal.reason. */
export const REFUSAL_REASONS = {
  recordInvalid: 'record_invalid',
  contentHashMismatch: 'content_hash_mismatch',
  chainLinkInvalid: 'chain_link_invalid',
  /** The hostFailure column disagrees with the record (session '' and sequence -1). */
  columnsMismatch: 'columns_mismatch',
  receivedInFuture: 'received_in_future',
  receivedBeforeLogged: 'received_before_logged',
  insertedBeforeLogged: 'inserted_before_logged',
  chainPrevMismatch: 'chain_prev_mismatch',
  sequenceOrder: 'sequence_order',
  chainHeadMissing: 'chain_head_missing',
  offChain: 'off_chain',
  ticketNotDecided: 'ticket_not_decided',
  receiptInvalid: 'receipt_invalid',
  receiptMismatch: 'receipt_mismatch',
  /** A record row above the pre-seal watermark with no ingest seal. */
  sealMissing: 'seal_missing',
  /** A record row whose seal is not the ingest's over its identity (forged, or moved). */
  sealInvalid: 'seal_invalid',
} as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[keyof typeof REFUSAL_REASONS];

const R = REFUSAL_REASONS;

/**
 * How far before the newest logged record's receivedAt a genuine unlogged
 * record can have been received. receivedAt is the ingest transaction's
 * start (now()); the transaction commits within INGEST_TX_TIMEOUT_MS of it or
 * rolls back. A record committed before the pass that logged a record
 * received at T would have been read by that pass (the backlog is read
 * whole, in order), so a record still unlogged committed after T and was
 * received after T − timeout. The margin covers a COMMIT already sent when
 * the timeout fires.
 */
export const RECEIVED_TOLERANCE_MS = INGEST_TX_TIMEOUT_MS + 30_000;

/** A receivedAt may be ahead of the appender's clock read by this much (ms rounding, statement order). */
const FUTURE_SKEW_MS = 1_000;

export type Judged<T> = { accepted: T[]; refused: Refusal[] };

export type RecordWindow = { now: string; earliest: string | null };

/** What seals are checked with: the key, and the highest id that may go unsealed (null: none). */
export type SealCheck = { key?: SealKey; preSealMax: bigint | null };

/** The reason `r`'s seal does not show it came through ingest, or null. */
function sealProblem(r: PendingRecord, seals: SealCheck): RefusalReason | null {
  if (r.seal === null) {
    return seals.preSealMax !== null && BigInt(r.id) <= seals.preSealMax ? null : R.sealMissing;
  }
  return sealVerifies(r, r.seal, seals.key) ? null : R.sealInvalid;
}

/** The records of one session reachable from its chain head, down to its last logged record. */
function onChain(ctx: SessionContext): Set<string> {
  const byHash = new Map<string, { id: string; prevHash: string | null }[]>();
  for (const a of ctx.after) {
    const same = byHash.get(a.chainHash);
    if (same) same.push(a);
    else byHash.set(a.chainHash, [a]);
  }
  const path = new Set<string>();
  let cur: string | null = ctx.headHash || null;
  for (let steps = 0; cur && cur !== ctx.logged?.chainHash && steps <= ctx.after.length; steps++) {
    const found = byHash.get(cur);
    if (!found) break;
    for (const f of found) path.add(f.id);
    cur = found[0].prevHash;
  }
  return path;
}

/**
 * The reason `r` cannot have come through ingest on its own (its content,
 * its link, its time), or its canonical JSON when there is none. The copied
 * columns are not judged here: they are not leaf data, and `checkLeaf`
 * compares them with the record on every read, logged or not.
 */
function ownProblem(r: PendingRecord, window: RecordWindow): RefusalReason | { canonical: string } {
  let canonical: string;
  try {
    canonical = canonicalJson(r.record);
  } catch {
    return R.recordInvalid;
  }
  if (sha256Hex(canonical) !== r.contentHash) return R.contentHashMismatch;
  const failure = isHostFailure(r.record as { session_id?: unknown; sequence?: unknown });
  if (failure !== r.hostFailure) return R.columnsMismatch;
  // Host failures are outside every chain: their link is over the record alone.
  if (failure && r.prevHash !== null) return R.chainLinkInvalid;
  if (chainHashOf(r.prevHash, canonical) !== r.chainHash) return R.chainLinkInvalid;
  const received = Date.parse(r.receivedAt);
  if (received > Date.parse(window.now) + FUTURE_SKEW_MS) return R.receivedInFuture;
  if (window.earliest !== null && r.receivedAt < window.earliest) return R.receivedBeforeLogged;
  return { canonical };
}

/**
 * A sealed record that ingest chained onto a row the guard refused: someone
 * moved the chain head onto a forgery, and ingest, which trusts the head,
 * linked the next genuine record after it. The seal shows the row (link
 * included) is ingest's own, so it is logged; the forgery before it stays
 * refused, and the detectors name it.
 */
function sealedAfterRefused(r: PendingRecord, ctx: SessionContext, seals: SealCheck): boolean {
  if (r.seal === null || r.prevHash === null) return false;
  const id = BigInt(r.id);
  const linkedTo = ctx.after.some((a) => a.chainHash === r.prevHash && BigInt(a.id) < id);
  return linkedTo && sealProblem(r, seals) === null;
}

/** A v2-sealed record accepted on its seal: the leaf hash ingest computed, as bytes. */
export type SealedRecord = PendingHead & { hash: Uint8Array };

/**
 * Judges records that carry a v2 seal and a leaf hash (records/seal.ts):
 * the seal is an HMAC over the leaf hash under a key the database does not
 * hold, and the leaf hash covers every field the log hashes (host, session,
 * sequence, chain and previous hash, receivedAt, agent, ticket, the record),
 * so a row whose seal verifies holds a leaf hash ingest computed for what it
 * stored; it is appended as given, without reading the record. A later
 * edit of the row makes it disagree with its logged leaf, which every
 * verifier reports as altered. No chain or time check is needed to keep a
 * forgery out of the log, so none is made: the seal is what ingest alone
 * can write.
 */
export function judgeSealedRecords(heads: PendingHead[], key?: SealKey): Judged<SealedRecord> {
  const accepted: SealedRecord[] = [];
  const refused: Refusal[] = [];
  for (const h of heads) {
    if (h.leafHash !== null && h.seal !== null && sealV2Verifies(h.leafHash, h.seal, key)) {
      accepted.push({ ...h, hash: Buffer.from(h.leafHash, 'hex') });
    } else {
      refused.push({ kind: 'record', refId: h.id, reason: R.sealInvalid });
    }
  }
  return { accepted, refused };
}

/** An accepted record with its canonical JSON (computed once, reused for its leaf). */
export type AcceptedRecord = PendingRecord & { canonical: string };

type Last = { id: string; chainHash: string; sequence: number; xmin: string | null };

/**
 * Judges unlogged records, given in id order (each session's chain order).
 * A record's predecessor is the session's previous record that is logged or
 * accepted here: refused rows are skipped, so a forged row never makes the
 * genuine rows behind it fail.
 */
export function judgeRecords(
  records: PendingRecord[],
  contexts: Map<string, SessionContext>,
  window: RecordWindow,
  seals: SealCheck,
): Judged<AcceptedRecord> {
  const accepted: AcceptedRecord[] = [];
  const refused: Refusal[] = [];
  const last = new Map<string, Last | null>();
  const chains = new Map<string, Set<string>>();
  const refuse = (r: PendingRecord, reason: RefusalReason) =>
    refused.push({ kind: 'record', refId: r.id, reason });
  for (const r of records) {
    const own = ownProblem(r, window);
    if (typeof own === 'string') {
      refuse(r, own);
      continue;
    }
    // Checked after the rest, so that a clumsier forgery is named for what
    // gives it away first; only the seal catches one that gets everything else right.
    if (r.hostFailure) {
      const seal = sealProblem(r, seals);
      if (seal) refuse(r, seal);
      else accepted.push({ ...r, canonical: own.canonical });
      continue;
    }
    const key = sessionKey(r.hostId, r.sessionId);
    const ctx = contexts.get(key);
    if (!ctx || ctx.headHash === null) {
      refuse(r, R.chainHeadMissing);
      continue;
    }
    if (ctx.logged && BigInt(r.id) < BigInt(ctx.logged.id)) {
      refuse(r, R.insertedBeforeLogged);
      continue;
    }
    if (!last.has(key)) {
      last.set(key, ctx.logged ? { ...ctx.logged, sequence: Number.NaN, xmin: null } : null);
    }
    const pred = last.get(key) ?? null;
    if (r.prevHash !== (pred?.chainHash ?? null) && !sealedAfterRefused(r, ctx, seals)) {
      refuse(r, R.chainPrevMismatch);
      continue;
    }
    // Ingest chains one batch (one transaction) in sequence order; a later
    // batch may carry a lower sequence (records/ingest.ts), so the order is
    // only checked between rows of one transaction, both still unlogged.
    if (pred?.xmin === r.xmin && pred.sequence >= r.sequence) {
      refuse(r, R.sequenceOrder);
      continue;
    }
    let chain = chains.get(key);
    if (!chain) {
      chain = onChain(ctx);
      chains.set(key, chain);
    }
    if (!chain.has(r.id)) {
      refuse(r, R.offChain);
      continue;
    }
    const seal = sealProblem(r, seals);
    if (seal) {
      refuse(r, seal);
      continue;
    }
    last.set(key, { id: r.id, chainHash: r.chainHash, sequence: r.sequence, xmin: r.xmin });
    accepted.push({ ...r, canonical: own.canonical });
  }
  return { accepted, refused };
}

const STATUS_OF: Record<string, string> = {
  approve: 'approved',
  reject: 'rejected',
  unresolved: 'expired',
};

const DECIDER_KIND_OF: Record<string, string> = {
  human: 'user',
  slack: 'slack',
  resolver: 'resolver',
  system: 'system',
};

/** Claims a receipt must share with its Decision row (receipts/claims.ts receiptClaims). */
function receiptMatches(c: ReceiptClaims, d: PendingDecision): boolean {
  return (
    c.ticket_id === d.ticketId &&
    c.host_id === d.hostId &&
    c.outcome === d.outcome &&
    c.context_identity === d.contextIdentity &&
    c.decided_at === d.decidedAt &&
    c.decider?.kind === DECIDER_KIND_OF[d.decidedByKind] &&
    c.decider?.user_id === d.userId
  );
}

/**
 * Judges unlogged decisions: the ticket is settled with the decision's
 * outcome, and a receipt, when present, verifies with the deployment's
 * published keys and says what the row says.
 */
export async function judgeDecisions(
  decisions: PendingDecision[],
  jwks: () => Promise<JSONWebKeySet>,
): Promise<Judged<PendingDecision>> {
  const accepted: PendingDecision[] = [];
  const refused: Refusal[] = [];
  let keys: JSONWebKeySet | undefined;
  for (const d of decisions) {
    const refuse = (reason: RefusalReason) =>
      refused.push({ kind: 'decision', refId: d.id, reason });
    if (STATUS_OF[d.outcome] !== d.ticketStatus) {
      refuse(R.ticketNotDecided);
      continue;
    }
    if (d.receipt !== null) {
      keys ??= await jwks();
      const check = await verifyReceipt(d.receipt, { ticketId: d.ticketId, jwks: keys });
      if (!check.ok) {
        refuse(check.code === 'receipt_ticket_mismatch' ? R.receiptMismatch : R.receiptInvalid);
        continue;
      }
      if (!receiptMatches(check.claims, d)) {
        refuse(R.receiptMismatch);
        continue;
      }
    }
    accepted.push(d);
  }
  return { accepted, refused };
}
