/**
 * Pure helpers for "approve with edit", shared by the browser (preview and
 * diff) and the server. The server stays the authority: it re-parses the
 * value, checks the path against the redacted paths and validates the
 * resolution (§9) before anything is released. Paths are spelled, parsed and
 * checked against the redacted paths by the engine itself (its §5.2 grammar
 * and its §9 overlap rule), so the form offers exactly what the server takes.
 */
import {
  formatSegments,
  type PathSegment,
  parseTransformPath,
  redactionTouchedByEdit,
} from '@checkpoint/agent-hooks';

export type Segment = string | number;

/**
 * The canonical §5.2 path (`$target.a[0].b-c`) for these segments, or null
 * when a key is outside the grammar's member-name (a space, a dot,
 * non-ASCII, ""): such a location has no §5.2 path, so it cannot be edited
 * by a transform (the whole target can still be replaced).
 */
export function formatTargetPath(segments: readonly Segment[], root = '$target'): string | null {
  const path: PathSegment[] = segments.map((s) =>
    typeof s === 'number' ? { kind: 'index', index: s } : { kind: 'member', name: s },
  );
  return formatSegments(path, root);
}

/** A label for a location that has no §5.2 path: keys quoted, clearly not a path. */
export function locationLabel(segments: readonly Segment[], root = '$target'): string {
  return [
    root,
    ...segments.map((s) => (typeof s === 'number' ? `[${s}]` : JSON.stringify(s))),
  ].join(' › ');
}

/** Every leaf (scalar, empty array or empty object) of `value`, with its path segments. */
export function leafPaths(value: unknown, limit = 500): Segment[][] {
  const out: Segment[][] = [];
  const walk = (v: unknown, at: Segment[]) => {
    if (out.length >= limit) return;
    if (Array.isArray(v) && v.length > 0) {
      for (let i = 0; i < v.length; i++) walk(v[i], [...at, i]);
    } else if (v !== null && typeof v === 'object' && Object.keys(v).length > 0) {
      for (const [k, item] of Object.entries(v)) walk(item, [...at, k]);
    } else {
      out.push(at);
    }
  };
  walk(value, []);
  return out;
}

export function getAt(value: unknown, segments: readonly Segment[]): unknown {
  let v = value;
  for (const s of segments) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[s];
  }
  return v;
}

/** A copy of `value` with the location at `segments` replaced; the rest is shared. */
export function setAt(value: unknown, segments: readonly Segment[], next: unknown): unknown {
  if (segments.length === 0) return next;
  const [head, ...rest] = segments;
  if (Array.isArray(value) && typeof head === 'number') {
    const copy = value.slice();
    copy[head] = setAt(copy[head], rest, next);
    return copy;
  }
  if (value !== null && typeof value === 'object' && typeof head === 'string') {
    const obj = value as Record<string, unknown>;
    return { ...obj, [head]: setAt(obj[head], rest, next) };
  }
  throw new Error('path does not resolve against the target');
}

/**
 * True when an edit at `edited` would write into (or over) one of `redacted`,
 * by the engine's rule (§9); a path the grammar refuses is never clear.
 */
export function touchesRedacted(edited: string, redacted: readonly string[]): boolean {
  const parsed = parseTransformPath(edited);
  return !parsed.ok || redactionTouchedByEdit(parsed.segments, redacted) !== null;
}

export type DiffLine = { kind: 'same' | 'add' | 'del'; text: string };

/** A line diff (longest common subsequence); fine for the few hundred lines of a target. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > 4_000_000) {
    return [
      ...a.map((text) => ({ kind: 'del' as const, text })),
      ...b.map((text) => ({ kind: 'add' as const, text })),
    ];
  }
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push({ kind: 'del', text: a[i++] });
    } else {
      out.push({ kind: 'add', text: b[j++] });
    }
  }
  while (i < a.length) out.push({ kind: 'del', text: a[i++] });
  while (j < b.length) out.push({ kind: 'add', text: b[j++] });
  return out;
}

export function prettyJson(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}

/** The JSON type of a value, as a reviewer reads it. */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * How an edit changes the type of what it replaces (issue 14: a string typed
 * where a number was is easy to miss and may break the tool), e.g.
 * "number → string", or null when the type stays. A new field has no type
 * before it, so nothing is said.
 */
export function typeChange(before: unknown, after: unknown): string | null {
  if (before === undefined) return null;
  const from = jsonType(before);
  const to = jsonType(after);
  return from === to ? null : `${from} → ${to}`;
}
