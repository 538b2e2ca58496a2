import { isAscii } from 'node:buffer';
import { hash } from 'node:crypto';
import { InclusionBatchVerifier, hashFromHex } from '@/lib/proof';
import { LEAF_MEMBER } from './export-format';
import { describeRecord } from './export-sessions';
import { type IntegrityFinding, finding, isFailure } from './findings';
import { receiptSha256 } from './leaf-data';
import { DISPLAYED_COLUMNS, displayedColumns } from './record-columns';
import { type SessionBatch, SessionBatchBuilder } from './session-store';

/**
 * The per-line half of export verification (export-verify.ts holds the
 * other, whole-file half): a chunk of record and decision lines is checked
 * on its own — each line's leaf hash and inclusion proof against the tree
 * head the header claims, its displayed columns against its record JSON, its
 * chain link — and answered as a `ChunkResult`, plain data, so chunks can be
 * checked on worker threads (export-file.ts) and merged in file order. What
 * needs the whole file (duplicate leaves, sessions, the end line, the tree
 * head's and the receipts' signatures) is left to the merge.
 */

/** The tree head every proof is checked against (the header's claim; its signature is checked once, in the merge). */
export type ClaimedHead = { size: number; rootHex: string };

export type PendingReceipt = {
  line: number;
  id: string;
  ticketId: string;
  hostId: string;
  outcome: string;
  jws: string;
  leafIndex: number | null;
};

export type ChunkResult = {
  /** Lines of the chunk: firstLine…lastLine (lastLine = firstLine - 1 for none). */
  firstLine: number;
  lastLine: number;
  /** The first non-empty line, or null. */
  firstNonEmpty: number | null;
  records: number;
  decisions: number;
  findings: IntegrityFinding[];
  /** Failures among the findings, counted even past `maxFindings`. */
  failures: number;
  /** The record lines for the session checks (compact: cheap to pass between threads and to keep). */
  entries: SessionBatch;
  /** Leaf indexes the lines claim (in range), with their lines, for the duplicate check. */
  leaves: number[];
  leafLines: number[];
  receipts: PendingReceipt[];
  end: { line: number; records: unknown; decisions: unknown } | null;
};

const LOWER_HEX_64 = /^[0-9a-f]{64}$/;

const strict = new TextDecoder('utf-8', { fatal: true });
const decodeUtf8 = (bytes: Uint8Array) => strict.decode(bytes);

function emptyResult(firstLine: number): ChunkResult {
  return {
    firstLine,
    lastLine: firstLine - 1,
    firstNonEmpty: null,
    records: 0,
    decisions: 0,
    findings: [],
    failures: 0,
    entries: EMPTY_BATCH,
    leaves: [],
    leafLines: [],
    receipts: [],
    end: null,
  };
}

const EMPTY_BATCH = new SessionBatchBuilder(-1).build();

export class LineChecker {
  private readonly batch: InclusionBatchVerifier | null;
  private readonly size: number;

  /**
   * `stream`: distinct per checker whose results one ExportVerifier merges
   * (the worker threads number theirs), as their session numbering is kept
   * from chunk to chunk (session-store.ts).
   */
  constructor(
    head: ClaimedHead | null,
    private readonly maxFindings = 10_000,
    private readonly stream = 0,
  ) {
    const root = head ? hashFromHex(head.rootHex) : null;
    this.size = head?.size ?? 0;
    this.batch = head && root && head.size > 0 ? new InclusionBatchVerifier(head.size, root) : null;
  }

  /** The chunk's bytes while its lines are checked, when they are ASCII (the line is at lineStart). */
  private bytes: Buffer | null = null;
  /** The record lines of the chunk being checked, for the session checks. */
  private sessionLines = new SessionBatchBuilder();
  private readonly sessionKeys = new Map<string, number>();
  private lineStart = 0;
  private lineLength = 0;

  /**
   * Checks the lines of a chunk of UTF-8 bytes (lines separated by `\n`, a
   * `\r` before it dropped; the first numbered `firstLine`). The bytes are
   * modified for a moment while a leaf is hashed, then restored.
   *
   * Pure ASCII (the common case) is read line by line as Latin-1, the same
   * characters: a string per line is several times cheaper than one string
   * of the whole chunk, and leaves are hashed from the bytes in place.
   * Anything else is decoded strictly as a whole (an invalid sequence throws
   * a TypeError with code ERR_ENCODING_INVALID_ENCODED_DATA, never U+FFFD).
   */
  chunk(bytes: Uint8Array, firstLine: number): ChunkResult {
    const acc = emptyResult(firstLine);
    this.sessionLines = new SessionBatchBuilder(this.stream, this.sessionKeys);
    if (!isAscii(bytes)) {
      this.bytes = null;
      this.lines(decodeUtf8(bytes), firstLine, acc);
      acc.entries = this.sessionLines.build();
      return acc;
    }
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.bytes = buf;
    let from = 0;
    let line = firstLine;
    try {
      while (from < buf.length) {
        let to = buf.indexOf(10, from);
        if (to < 0) to = buf.length;
        const stop = to > from && buf[to - 1] === 13 ? to - 1 : to;
        this.lineStart = from;
        this.lineLength = stop - from;
        this.line(buf.toString('latin1', from, stop), line, acc);
        acc.lastLine = line;
        line++;
        from = to + 1;
      }
    } finally {
      this.bytes = null;
    }
    acc.entries = this.sessionLines.build();
    return acc;
  }

  /** The same over text (lines separated by `\n`); leaves are hashed from the text. */
  text(text: string, firstLine: number): ChunkResult {
    const acc = emptyResult(firstLine);
    this.sessionLines = new SessionBatchBuilder(this.stream, this.sessionKeys);
    this.bytes = null;
    this.lines(text, firstLine, acc);
    acc.entries = this.sessionLines.build();
    return acc;
  }

  private lines(text: string, firstLine: number, acc: ChunkResult): void {
    let from = 0;
    let line = firstLine;
    while (from < text.length) {
      let to = text.indexOf('\n', from);
      if (to < 0) to = text.length;
      const stop = to > from && text.charCodeAt(to - 1) === 13 ? to - 1 : to;
      this.line(text.slice(from, stop), line, acc);
      acc.lastLine = line;
      line++;
      from = to + 1;
    }
  }

  private report(acc: ChunkResult, f: IntegrityFinding): void {
    if (isFailure(f)) acc.failures++;
    if (acc.findings.length < this.maxFindings) acc.findings.push(f);
  }

  private line(text: string, line: number, acc: ChunkResult): void {
    if (text === '') return;
    acc.firstNonEmpty ??= line;
    if (acc.end) {
      this.report(
        acc,
        finding('forged', 'record', `line ${line}: forged — a line after the end line`),
      );
      return;
    }
    const at = text.indexOf(LEAF_MEMBER);
    if (at < 0) {
      this.otherLine(text, line, acc);
      return;
    }
    let meta: Record<string, unknown>;
    let leaf: Record<string, unknown>;
    const leafText = text.slice(at + LEAF_MEMBER.length, -1);
    try {
      // One parse of the whole line. Its `leaf` is the value of leafText: a
      // line parses only if leafText is one whole value closed by the
      // line's last brace at the top level (a first `,"leaf":` inside a
      // nested object would leave the line unclosed), and of duplicate
      // members JSON.parse keeps the last, which is that one.
      if (text.charCodeAt(text.length - 1) !== 125) throw new Error('no closing brace');
      meta = JSON.parse(text);
      leaf = meta.leaf as Record<string, unknown>;
      if (!leaf || typeof leaf !== 'object' || Array.isArray(leaf)) throw new Error('leaf');
    } catch {
      this.report(
        acc,
        finding('altered', 'record', `line ${line}: altered — not a JSON line of this format`),
      );
      return;
    }
    if (meta.kind === 'record' && leaf.kind === 'record')
      this.recordLine(meta, leaf, leafText, line, acc);
    else if (meta.kind === 'decision' && leaf.kind === 'decision')
      this.decisionLine(meta, leaf, leafText, line, acc);
    else {
      this.report(
        acc,
        finding(
          'altered',
          'record',
          `line ${line}: altered — a ${String(meta.kind)} line holding a ${String(leaf.kind)} leaf`,
        ),
      );
    }
  }

  private otherLine(text: string, line: number, acc: ChunkResult): void {
    let value: { kind?: unknown; records?: unknown; decisions?: unknown };
    try {
      value = JSON.parse(text);
    } catch {
      value = {};
    }
    if (value?.kind === 'end') {
      acc.end = { line, records: value.records, decisions: value.decisions };
      return;
    }
    this.report(
      acc,
      finding('altered', 'record', `line ${line}: altered — not a record, decision or end line`),
    );
  }

  /** Checks the leaf's inclusion; a line without a proof is not covered by the head and fails closed. */
  private included(
    what: string,
    leafText: string,
    meta: Record<string, unknown>,
    subject: 'record' | 'decision',
    where: Partial<IntegrityFinding>,
    line: number,
    acc: ChunkResult,
  ): boolean {
    const index = meta.leaf_index;
    const proof = meta.proof;
    if (index === null || index === undefined || !Array.isArray(proof)) {
      this.report(
        acc,
        finding(
          'forged',
          subject,
          `${what}: forged — not in the log: the export carries no inclusion proof for it under the tree head`,
          where,
        ),
      );
      return false;
    }
    if (!Number.isSafeInteger(index) || (index as number) < 0 || (index as number) >= this.size) {
      this.report(
        acc,
        finding(
          'proof_failed',
          subject,
          `${what}: proof_failed — leaf ${String(index)} is not under the tree head of size ${this.size}`,
          where,
        ),
      );
      return false;
    }
    // Exported twice is decided in the merge, over the whole file.
    acc.leaves.push(index as number);
    acc.leafLines.push(line);
    if (!this.batch) return false; // the tree head itself is reported by the merge
    const leafHash = this.leafHash(leafText);
    if (!this.batch.verifyHex(leafHash, index as number, proof as string[])) {
      this.report(
        acc,
        finding(
          'altered',
          subject,
          `${what}: altered — its leaf data does not hash to leaf ${index} under the signed tree head (the line or its proof was changed)`,
          where,
        ),
      );
      return false;
    }
    return true;
  }

  /**
   * RFC 9162 leaf hash (hex) of the leaf text as the line carries it:
   * SHA-256(0x00 || UTF-8 text). From ASCII bytes, the byte before the text
   * (the `:` of `"leaf":`) is the 0x00 for the moment of hashing, so the
   * input is hashed in place.
   */
  private leafHash(leafText: string): string {
    const bytes = this.bytes;
    if (bytes === null) return hash('sha256', `\u0000${leafText}`, 'hex');
    const end = this.lineStart + this.lineLength - 1;
    const at = end - leafText.length - 1;
    const saved = bytes[at] as number;
    bytes[at] = 0;
    try {
      return hash('sha256', bytes.subarray(at, end), 'hex');
    } finally {
      bytes[at] = saved;
    }
  }

  /**
   * The chain link (hex) of a record whose canonical text is leafText[from,
   * to): SHA-256(prev || text) (record-columns.ts `chainHashOf`). From ASCII
   * bytes with a previous link of 64 lowercase hex characters (`prevHex`),
   * the link is written over the 64 bytes before the record text for the
   * moment of hashing (as `leafHash` does), so nothing is copied or encoded.
   */
  private chainLink(
    prev: unknown,
    prevHex: boolean,
    leafText: string,
    from: number,
    to: number,
  ): string {
    const bytes = this.bytes;
    if (bytes === null || (prev !== null && !prevHex) || from < 64) {
      return hash('sha256', ((prev ?? '') as string) + leafText.slice(from, to), 'hex');
    }
    const leafStart = this.lineStart + this.lineLength - 1 - leafText.length;
    const start = leafStart + from;
    const end = leafStart + to;
    if (prev === null) return hash('sha256', bytes.subarray(start, end), 'hex');
    const saved = this.saved;
    saved.set(bytes.subarray(start - 64, start));
    bytes.write(prev as string, start - 64, 64, 'latin1');
    try {
      return hash('sha256', bytes.subarray(start - 64, end), 'hex');
    } finally {
      bytes.set(saved, start - 64);
    }
  }

  private readonly saved = new Uint8Array(64);

  private recordLine(
    meta: Record<string, unknown>,
    leaf: Record<string, unknown>,
    leafText: string,
    line: number,
    acc: ChunkResult,
  ): void {
    acc.records++;
    const id = String(meta.id ?? '?');
    const sessionId = String(leaf.session_id ?? '');
    const sequence = Number(leaf.sequence);
    const hostId = String(leaf.host_id ?? '');
    const session = { hostId, sessionId };
    const leafIndex = Number.isSafeInteger(meta.leaf_index) ? (meta.leaf_index as number) : null;
    const where = { recordId: id, hostId, sessionId, sequence, leafIndex };
    const what = describeRecord({ line, id }, session, sequence);
    const authentic = this.included(what, leafText, meta, 'record', where, line, acc);
    const fields = columnMismatches(meta.columns, leaf);
    if (fields.length > 0) {
      this.report(
        acc,
        finding(
          'altered',
          'record',
          `${what}: altered — displayed ${fields.join(', ')} disagree${fields.length === 1 ? 's' : ''} with the record JSON`,
          where,
        ),
      );
    }
    const chain = leaf.chain_hash as string;
    const prev = (leaf.prev_hash ?? null) as string | null;
    // Host failures are outside every chain; a session's lines are kept for the session checks.
    const prevHex =
      sessionId === '' && sequence === -1
        ? typeof prev === 'string' && LOWER_HEX_64.test(prev)
        : this.sessionLines.push(
            `${hostId}\u0000${sessionId}`,
            line,
            id,
            sequence,
            chain,
            prev,
            leafIndex,
          );
    // The record's canonical text is inside the (authentic, canonical) leaf text: no re-serializing.
    if (authentic) {
      const from = leafText.indexOf(',"record":');
      const to = leafText.lastIndexOf(',"sequence":');
      if (
        from < 0 ||
        to < from ||
        this.chainLink(prev, prevHex, leafText, from + 10, to) !== chain
      ) {
        this.report(
          acc,
          finding(
            'forged',
            'record',
            `${what}: forged — its chain link does not recompute, so ingest did not store it`,
            where,
          ),
        );
      }
    }
  }

  private decisionLine(
    meta: Record<string, unknown>,
    leaf: Record<string, unknown>,
    leafText: string,
    line: number,
    acc: ChunkResult,
  ): void {
    acc.decisions++;
    const id = String(meta.id ?? '?');
    const ticketId = String(leaf.ticket_id ?? '');
    const hostId = String(leaf.host_id ?? '');
    const what = `line ${line}: decision ${id} (ticket ${ticketId})`;
    const leafIndex = Number.isSafeInteger(meta.leaf_index) ? (meta.leaf_index as number) : null;
    const where = { ticketId, hostId, leafIndex };
    this.included(what, leafText, meta, 'decision', where, line, acc);
    const receipt = typeof meta.receipt === 'string' ? meta.receipt : null;
    const bound = leaf.receipt_sha256;
    if (bound !== undefined && (receipt === null || receiptSha256(receipt) !== bound)) {
      this.report(
        acc,
        finding(
          'altered',
          'decision',
          `${what}: altered — ${receipt === null ? 'the receipt the log binds is missing' : 'the receipt is not the one the log binds (receipt_sha256)'}`,
          where,
        ),
      );
      return;
    }
    if (receipt !== null) {
      acc.receipts.push({
        line,
        id,
        ticketId,
        hostId,
        outcome: String(leaf.outcome),
        jws: receipt,
        leafIndex,
      });
    }
  }
}

function columnMismatches(columns: unknown, leaf: Record<string, unknown>): string[] {
  const record = leaf.record as { session_id?: unknown; sequence?: unknown } | null;
  const derived = displayedColumns(record, leaf.session_id as string, leaf.sequence as number);
  if (!derived || !columns || typeof columns !== 'object') return ['columns'];
  const out: string[] = [];
  if (record?.session_id !== leaf.session_id) out.push('session_id');
  if (record?.sequence !== leaf.sequence) out.push('sequence');
  const shown = columns as Record<string, unknown>;
  for (const k of DISPLAYED_COLUMNS) if ((shown[k] ?? null) !== (derived[k] ?? null)) out.push(k);
  return out;
}
