/**
 * Pure helpers for "approve with edit", shared by the browser (preview and
 * diff) and the server. The server stays the authority: it re-parses the
 * value, checks the path against the redacted paths and validates the
 * resolution (§9) before anything is released.
 */

export type Segment = string | number;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A §5.2 path (`$target.a[0]["b c"]`) for these segments. */
export function formatTargetPath(segments: readonly Segment[], root = '$target'): string {
  let out = root;
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (NAME.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
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

/** True when editing `edited` would write into (or above) one of `redacted`. */
export function touchesRedacted(edited: string, redacted: readonly string[]): boolean {
  return redacted.some(
    (r) =>
      r === edited ||
      r.startsWith(`${edited}.`) ||
      r.startsWith(`${edited}[`) ||
      edited.startsWith(`${r}.`) ||
      edited.startsWith(`${r}[`),
  );
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
