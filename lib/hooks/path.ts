import { HOST_ERRORS } from './vocabulary.ts';

/**
 * §5.2 transform paths, per the normative spec/schema/path-grammar.abnf:
 *   path           = root *segment
 *   root           = "$target" / "$policy_target"   ; the alias is deprecated, removed in v0.3
 *   segment        = "." member-name / "[" 1*DIGIT "]" / "[" DQUOTE member-name DQUOTE "]"
 *   member-name    = 1*( ALPHA / DIGIT / "_" / "-" )  ; ASCII only, same in both member forms
 *
 * Pinned readings: a dot-member whose name is all digits (`$target.0`) is a
 * MEMBER named "0", never an index (dot-member = member-name); a
 * bracket-index keeps leading zeros (`[007]` is index 7). An index beyond the
 * safe integers can address no array element, so it is refused here as
 * transform_invalid rather than rounded. Roots are matched case-sensitively,
 * as in the §5.2 prose and RFC 9535.
 *
 * This module is the ONE implementation of the grammar: the engine, the
 * redaction-path validator and the approval UI all use it. It has no
 * dependencies beyond the vocabulary, so browser code can import it directly.
 */
export type PathSegment = { kind: 'member'; name: string } | { kind: 'index'; index: number };

export type PathError = {
  ok: false;
  reason: typeof HOST_ERRORS.transformTargetForbidden | typeof HOST_ERRORS.transformInvalid;
  message: string;
  /** UTF-16 offset of the first character the grammar refuses. */
  offset: number;
};

export type ParsedPath = { ok: true; segments: PathSegment[]; deprecatedRoot: boolean } | PathError;

const ROOTS = ['$target', '$policy_target'] as const;

/** One member-name character: ASCII letter, digit, "_" or "-". */
function isNameChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x2d
  );
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** True iff `name` can be written as a §5.2 member (`.name` or `["name"]`). */
export function isMemberName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) if (!isNameChar(name.charCodeAt(i))) return false;
  return true;
}

export function parseTransformPath(path: string): ParsedPath {
  // "$targets.x" names another root; "$target x" is $target with a malformed segment.
  const root = ROOTS.find(
    (r) => path.startsWith(r) && !/^[A-Za-z0-9_]/.test(path.slice(r.length, r.length + 1)),
  );
  if (!root) {
    return {
      ok: false,
      reason: HOST_ERRORS.transformTargetForbidden,
      message: 'transform.path is not rooted at $target (§5.2)',
      offset: 0,
    };
  }
  const segments: PathSegment[] = [];
  let i = root.length;
  while (i < path.length) {
    const step = segmentAt(path, i);
    if (!step.ok) return step;
    segments.push(step.segment);
    i = step.next;
  }
  return { ok: true, segments, deprecatedRoot: root === '$policy_target' };
}

type Step = { ok: true; segment: PathSegment; next: number } | PathError;

function segmentAt(path: string, i: number): Step {
  const c = path[i];
  if (c === '.') {
    const end = nameEnd(path, i + 1);
    if (end === i + 1) return invalid(path, i + 1, 'a member name after "."');
    return { ok: true, segment: { kind: 'member', name: path.slice(i + 1, end) }, next: end };
  }
  if (c !== '[') return invalid(path, i, '".", "[" or the end of the path');
  if (path[i + 1] === '"') {
    const end = nameEnd(path, i + 2);
    if (end === i + 2) return invalid(path, i + 2, 'a member name after "["');
    if (path[end] !== '"')
      return invalid(path, end, 'a closing quote (a member name holds A-Z a-z 0-9 _ -)');
    if (path[end + 1] !== ']') return invalid(path, end + 1, '"]"');
    return { ok: true, segment: { kind: 'member', name: path.slice(i + 2, end) }, next: end + 2 };
  }
  let end = i + 1;
  while (end < path.length && isDigit(path.charCodeAt(end))) end++;
  if (end === i + 1)
    return invalid(path, i + 1, 'an index (digits) or a quoted member name after "["');
  if (path[end] !== ']') return invalid(path, end, 'a digit or "]"');
  const index = Number(path.slice(i + 1, end));
  if (!Number.isSafeInteger(index)) {
    return {
      ok: false,
      reason: HOST_ERRORS.transformInvalid,
      message: `transform.path index at offset ${i + 1} is beyond any array index (§5.2)`,
      offset: i + 1,
    };
  }
  return { ok: true, segment: { kind: 'index', index }, next: end + 1 };
}

function nameEnd(path: string, from: number): number {
  let end = from;
  while (end < path.length && isNameChar(path.charCodeAt(end))) end++;
  return end;
}

function invalid(path: string, offset: number, expected: string): PathError {
  return {
    ok: false,
    reason: HOST_ERRORS.transformInvalid,
    message: `transform.path is malformed at offset ${offset}: expected ${expected}, found ${describeChar(path, offset)} (§5.2 grammar)`,
    offset,
  };
}

/** The character at `offset` for an error message: quoted, with its code point. */
function describeChar(path: string, offset: number): string {
  const cp = path.codePointAt(offset);
  if (cp === undefined) return 'the end of the path';
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  const printable = cp > 0x20 && cp !== 0x7f && !(cp >= 0x80 && cp < 0xa0);
  return printable ? `${JSON.stringify(String.fromCodePoint(cp))} (U+${hex})` : `U+${hex}`;
}

/**
 * Render segments as a canonical §5.2 path: members in dot form, indexes
 * without leading zeros. Returns null when a member name is outside
 * member-name (e.g. "with space", "a.b", ""): no §5.2 path can address
 * that key, and emitting one would produce a path the grammar refuses.
 */
export function formatSegments(segments: readonly PathSegment[], root = '$target'): string | null {
  let out = root;
  for (const s of segments) {
    if (s.kind === 'index') {
      if (!Number.isSafeInteger(s.index) || s.index < 0) return null;
      out += `[${s.index}]`;
    } else if (isMemberName(s.name)) {
      out += `.${s.name}`;
    } else {
      return null;
    }
  }
  return out;
}

/**
 * `formatSegments` for segments that came out of `parseTransformPath` (so
 * always addressable); throws a RangeError if handed an unaddressable name.
 */
export function formatPath(segments: readonly PathSegment[]): string {
  const out = formatSegments(segments);
  if (out === null) throw new RangeError('a segment cannot be written as a §5.2 path');
  return out;
}

/**
 * True when one path is a prefix of the other (equal paths included): a
 * write at either reads or rewrites content at the other. This is the rule
 * that keeps an approve-with-edit clear of what the host redacted (§9).
 */
export function pathsOverlap(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (
      x.kind === 'member'
        ? y.kind !== 'member' || x.name !== y.name
        : y.kind !== 'index' || x.index !== y.index
    ) {
      return false;
    }
  }
  return true;
}
