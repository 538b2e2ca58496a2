import type { JSONWebKeySet } from 'jose';
import { hashFromHex, verifyConsistency } from '@/lib/proof';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportChainHead,
  type ExportHeader,
} from './export-format';
import {
  type ChunkResult,
  type ClaimedHead,
  LineChecker,
  type PendingReceipt,
} from './export-lines';
import { checkCompleteSession, checkDuplicates, describeRecord } from './export-sessions';
import { type IntegrityFinding, finding, isFailure } from './findings';
import { SessionStore } from './session-store';
import {
  RECEIPT_TYP,
  type TreeHeadClaims,
  treeHeadClaims,
  unverifiedPayload,
  verifyCompactJws,
  verifyTreeHead,
} from './jws';

/**
 * Verifies an audit export or evidence bundle (export-format.ts) offline:
 * the header's signed tree head against the given JWKS, every line's leaf
 * hash (of the exact leaf text it carries) and inclusion proof against that
 * head, each record's displayed columns against its record JSON, its chain
 * link (those per line, in export-lines.ts), then over the whole file: no
 * leaf exported twice, the sessions' links, sequence holes and chain heads,
 * the end line, and each decision's receipt. Give it the header
 * (`header`), then the chunks' results in file order (`merge`) — or simply
 * every line (`push`) —, then `finish()`. The few JWS checks (tree heads,
 * receipts) are awaited in `finish`. export-file.ts reads a file this way,
 * on worker threads when it is large.
 */

/** Input the verifier cannot work with at all (not an export, unsupported version): exit 2. */
export class ExportInputError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ExportInputError';
  }
}

export type ExportVerification = {
  ok: boolean;
  records: number;
  decisions: number;
  treeHead: TreeHeadClaims | null;
  findings: IntegrityFinding[];
};

export type VerifyExportOptions = {
  jwks: JSONWebKeySet;
  /** An older signed tree head (compact JWS): the export's head must be consistent with it. */
  olderTreeHead?: string;
  /** Stop collecting findings past this many (the verdict still counts every failure). */
  maxFindings?: number;
};

type Header = Omit<ExportHeader, 'tree_head'> & {
  tree_head: { jws: string } & Record<string, unknown>;
};

/**
 * The first line of every leaf index, for "exported twice". An export lists
 * its leaves in log order, so they usually arrive ascending: those go into
 * typed arrays (searched by bisection), anything else into a Map. A Map of
 * a million entries cost the merge more than everything else it does.
 */
class LeafLines {
  private leaves = new Float64Array(1024);
  private lines = new Float64Array(1024);
  private n = 0;
  private readonly others = new Map<number, number>();

  get size(): number {
    return this.n + this.others.size;
  }

  /** The line the leaf was first seen on; this one if it is new (then remembered). */
  firstLine(leaf: number, line: number): number {
    const n = this.n;
    if (n === 0 || leaf > (this.leaves[n - 1] as number)) {
      // Above every ascending leaf so far, so not among the others either
      // (each of those was at most the largest ascending leaf when it came).
      if (n === this.leaves.length) this.grow();
      this.leaves[n] = leaf;
      this.lines[n] = line;
      this.n = n + 1;
      return line;
    }
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.leaves[mid] as number) < leaf) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n && this.leaves[lo] === leaf) return this.lines[lo] as number;
    const other = this.others.get(leaf);
    if (other !== undefined) return other;
    this.others.set(leaf, line);
    return line;
  }

  private grow(): void {
    const leaves = new Float64Array(this.leaves.length * 2);
    const lines = new Float64Array(this.lines.length * 2);
    leaves.set(this.leaves);
    lines.set(this.lines);
    this.leaves = leaves;
    this.lines = lines;
  }
}

export class ExportVerifier {
  private head: Header | null = null;
  private claimed: TreeHeadClaims | null = null;
  private local: LineChecker | null = null;
  private readonly findings: IntegrityFinding[] = [];
  private failures = 0;
  private records = 0;
  private decisions = 0;
  private lastLine = 0;
  private ended: { line: number; records: unknown; decisions: unknown } | null = null;
  /** Every session's (`host\u0000session`) record lines, compactly. */
  private readonly sessions = new SessionStore();
  /** Leaf index → the line that first exported it. */
  private readonly leafLines = new LeafLines();
  private readonly duplicates: { index: number; line: number; first: number }[] = [];
  private readonly receipts: PendingReceipt[] = [];
  private readonly maxFindings: number;

  constructor(private readonly opts: VerifyExportOptions) {
    this.maxFindings = opts.maxFindings ?? 10_000;
  }

  private report(f: IntegrityFinding): void {
    if (isFailure(f)) this.failures++;
    if (this.findings.length < this.maxFindings) this.findings.push(f);
  }

  /**
   * Reads the header (line 1) and answers the tree head the lines' proofs
   * are checked against: the one the header's JWS claims (its signature is
   * checked in `finish`), or null when there is none to check against.
   */
  header(text: string): ClaimedHead | null {
    this.readHeader(text);
    const claimed = this.claimed;
    return claimed ? { size: claimed.size, rootHex: claimed.root_hash } : null;
  }

  /** One line (without its newline), line 1 being the header; for small inputs and tests. */
  push(text: string, line: number): void {
    if (this.head === null) {
      this.local = new LineChecker(this.header(text), this.maxFindings);
      this.lastLine = line;
      return;
    }
    this.merge((this.local as LineChecker).text(text, line));
  }

  /** The result of a chunk of lines after the header; chunks must be merged in file order. */
  merge(r: ChunkResult): void {
    if (r.lastLine >= r.firstLine) this.lastLine = r.lastLine;
    if (r.firstNonEmpty === null) return;
    if (this.ended) {
      this.sessions.skip(r.entries);
      this.report(
        finding(
          'forged',
          'record',
          `line ${r.firstNonEmpty}: forged — a line after the end line${r.lastLine > r.firstNonEmpty ? ` (lines ${r.firstNonEmpty}–${r.lastLine})` : ''}`,
        ),
      );
      return;
    }
    this.records += r.records;
    this.decisions += r.decisions;
    this.failures += r.failures;
    for (const f of r.findings) if (this.findings.length < this.maxFindings) this.findings.push(f);
    for (let i = 0; i < r.leaves.length; i++) {
      const index = r.leaves[i] as number;
      const line = r.leafLines[i] as number;
      const first = this.leafLines.firstLine(index, line);
      if (first !== line) this.duplicates.push({ index, line, first });
    }
    this.sessions.add(r.entries);
    for (const receipt of r.receipts) this.receipts.push(receipt);
    if (r.end) this.ended = r.end;
  }

  private readHeader(text: string): void {
    let header: Header;
    try {
      header = JSON.parse(text);
    } catch {
      throw new ExportInputError(
        'export_invalid',
        'line 1 is not JSON: not a Checkpoint audit export',
      );
    }
    if (header?.format !== EXPORT_FORMAT) {
      throw new ExportInputError(
        'export_invalid',
        `line 1 is not a ${EXPORT_FORMAT} header (a JSONL export from before signed exports, or another file)`,
      );
    }
    if (header.version !== EXPORT_VERSION) {
      throw new ExportInputError(
        'export_version_unsupported',
        `export format version ${JSON.stringify(header.version)}; this verifier reads version ${EXPORT_VERSION}`,
      );
    }
    this.head = header;
    // Proofs are checked against the head the JWS says (its signature is checked in finish()).
    const jws = typeof header.tree_head?.jws === 'string' ? header.tree_head.jws : '';
    this.claimed = treeHeadClaims(unverifiedPayload(jws));
  }

  /** A leaf exported twice: named by the line (and, for a record, its id, session and sequence). */
  private checkDuplicates(): void {
    if (this.duplicates.length === 0) return;
    const byLine = this.sessions.onLines(new Set(this.duplicates.map((d) => d.line)));
    for (const d of this.duplicates) {
      const found = byLine.get(d.line);
      const e = found?.entry;
      const [hostId = '', sessionId = ''] = found ? found.key.split('\u0000') : [];
      const receipt = e ? undefined : this.receipts.find((r) => r.line === d.line);
      const what = e
        ? describeRecord(e, { hostId, sessionId }, e.sequence)
        : receipt
          ? `line ${d.line}: decision ${receipt.id} (ticket ${receipt.ticketId})`
          : `line ${d.line}`;
      this.report(
        finding(
          'forged',
          receipt ? 'decision' : 'record',
          `${what}: forged — leaf ${d.index} is exported twice (also on line ${d.first})`,
          e
            ? { recordId: e.id, hostId, sessionId, sequence: e.sequence, leafIndex: d.index }
            : { ticketId: receipt?.ticketId ?? null, leafIndex: d.index },
        ),
      );
    }
  }

  async finish(): Promise<ExportVerification> {
    if (!this.head) throw new ExportInputError('export_invalid', 'the file is empty');
    await this.checkTreeHead();
    await this.checkReceipts();
    this.checkDuplicates();
    this.checkSessions();
    this.checkEnd();
    return {
      ok: this.failures === 0,
      records: this.records,
      decisions: this.decisions,
      treeHead: this.claimed,
      findings: this.findings,
    };
  }

  private async checkTreeHead(): Promise<void> {
    const given = this.head?.tree_head;
    const fail = (detail: string) =>
      this.report(
        finding(
          'tree_head_invalid',
          'tree_head',
          `line 1: tree head: tree_head_invalid — ${detail}`,
        ),
      );
    const checked = await verifyTreeHead(String(given?.jws ?? ''), this.opts.jwks);
    if (!checked.ok) {
      fail(checked.message);
      this.claimed = null;
      return;
    }
    const head = checked.head;
    for (const k of ['size', 'root_hash', 'timestamp', 'kid'] as const) {
      if (given?.[k] !== undefined && given[k] !== head[k])
        fail(`the header's ${k} is not what the signed tree head says`);
    }
    if (head.size === 0 && this.leafLines.size > 0) fail('the tree head is empty');
    if (this.opts.olderTreeHead !== undefined)
      await this.checkConsistency(head, this.opts.olderTreeHead);
  }

  private async checkConsistency(head: TreeHeadClaims, olderJws: string): Promise<void> {
    const older = await verifyTreeHead(olderJws, this.opts.jwks);
    if (!older.ok) {
      this.report(
        finding(
          'tree_head_invalid',
          'tree_head',
          `--tree-head: tree_head_invalid — ${older.message}`,
        ),
      );
      return;
    }
    const m = older.head.size;
    const inconsistent = (detail: string) =>
      this.report(
        finding('inconsistent', 'tree_head', `tree head of size ${m}: inconsistent — ${detail}`),
      );
    if (m > head.size) {
      inconsistent(
        `it is larger than the export's tree head (size ${head.size}); export again to compare`,
      );
      return;
    }
    if (m === 0 || m === head.size) {
      const same = m === 0 || older.head.root_hash === head.root_hash;
      if (!same) inconsistent(`both heads have size ${m} but different root hashes`);
      return;
    }
    const entry = (this.head?.consistency ?? []).find((c) => c?.from === m && c?.to === head.size);
    if (!entry) {
      throw new ExportInputError(
        'consistency_proof_missing',
        `the export carries no consistency proof from size ${m} to ${head.size}; export again with ?consistency_from=${m}`,
      );
    }
    const proof = Array.isArray(entry.proof) ? entry.proof.map((h) => hashFromHex(String(h))) : [];
    const oldRoot = hashFromHex(older.head.root_hash);
    const newRoot = hashFromHex(head.root_hash);
    const ok =
      oldRoot !== null &&
      newRoot !== null &&
      proof.every((h) => h !== null) &&
      verifyConsistency(m, head.size, proof as Uint8Array[], oldRoot, newRoot);
    if (!ok)
      inconsistent(
        `the log of size ${head.size} is not an extension of it (the consistency proof fails)`,
      );
  }

  private async checkReceipts(): Promise<void> {
    const jwks = this.opts.jwks;
    for (const r of this.receipts) {
      const what = `line ${r.line}: decision ${r.id} (ticket ${r.ticketId})`;
      const where = { ticketId: r.ticketId, hostId: r.hostId, leafIndex: r.leafIndex };
      const checked = await verifyCompactJws(r.jws, jwks, RECEIPT_TYP);
      if (!checked.ok) {
        this.report(
          finding('forged', 'decision', `${what}: forged — the receipt: ${checked.message}`, where),
        );
        continue;
      }
      const c = checked.payload;
      if (c.ticket_id !== r.ticketId || c.host_id !== r.hostId || c.outcome !== r.outcome) {
        this.report(
          finding(
            'altered',
            'decision',
            `${what}: altered — the receipt is about ticket ${String(c.ticket_id)} (${String(c.outcome)}), not this decision`,
            where,
          ),
        );
      }
    }
  }

  private checkSessions(): void {
    const complete = new Map<string, ExportChainHead | null>();
    for (const s of this.head?.sessions ?? []) {
      complete.set(`${s.host_id}\u0000${s.session_id}`, s.head ?? null);
    }
    for (const [key, entries] of this.sessions.bySession()) {
      const [hostId = '', sessionId = ''] = key.split('\u0000');
      const ref = { hostId, sessionId };
      for (const f of checkDuplicates(ref, entries)) this.report(f);
      if (complete.has(key)) {
        for (const f of checkCompleteSession(ref, entries, complete.get(key) ?? null))
          this.report(f);
      }
    }
    // A complete session with no line at all: every record of it is gone.
    for (const [key, head] of complete) {
      if (this.sessions.has(key) || !head || head.record_count === 0) continue;
      const [hostId = '', sessionId = ''] = key.split('\u0000');
      this.report(
        finding(
          'truncated',
          'session',
          `session ${sessionId}: truncated — none of its ${head.record_count} records is in the export`,
          { hostId, sessionId },
        ),
      );
    }
  }

  private checkEnd(): void {
    if (!this.ended) {
      this.report(
        finding(
          'truncated',
          'record',
          `line ${this.lastLine}: truncated — the export ends without its end line: the file was cut short`,
        ),
      );
      return;
    }
    if (this.ended.records !== this.records || this.ended.decisions !== this.decisions) {
      this.report(
        finding(
          'truncated',
          'record',
          `line ${this.ended.line}: truncated — the end line counts ${String(this.ended.records)} records and ${String(this.ended.decisions)} decisions, the file holds ${this.records} and ${this.decisions}`,
        ),
      );
    }
  }
}
