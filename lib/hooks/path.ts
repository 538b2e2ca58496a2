import { HOST_ERRORS } from './vocabulary';

/**
 * §5.2 transform paths, per spec/schema/path-grammar.abnf:
 *   path    = root *segment
 *   root    = "$target" / "$policy_target"     ; the alias is deprecated, removed in v0.3
 *   segment = "." name / "[" index "]" / "[" json-string "]"
 *   name    = [A-Za-z_] *[A-Za-z0-9_]
 *   index   = "0" / [1-9] *DIGIT
 */
export type PathSegment = { kind: 'member'; name: string } | { kind: 'index'; index: number };

export type ParsedPath =
  | { ok: true; segments: PathSegment[]; deprecatedRoot: boolean }
  | {
      ok: false;
      reason: typeof HOST_ERRORS.transformTargetForbidden | typeof HOST_ERRORS.transformInvalid;
      message: string;
    };

const ROOTS = ['$target', '$policy_target'] as const;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const INDEX = /^(0|[1-9][0-9]*)\]/;

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
    };
  }
  const segments: PathSegment[] = [];
  let i = root.length;
  while (i < path.length) {
    const rest = path.slice(i);
    if (rest[0] === '.') {
      const m = NAME.exec(rest.slice(1));
      if (!m) return invalid(i);
      segments.push({ kind: 'member', name: m[0] });
      i += 1 + m[0].length;
    } else if (rest.startsWith('["')) {
      const end = closingQuote(rest, 2);
      if (end < 0 || rest[end + 1] !== ']') return invalid(i);
      let name: unknown;
      try {
        name = JSON.parse(rest.slice(1, end + 1));
      } catch {
        return invalid(i);
      }
      segments.push({ kind: 'member', name: name as string });
      i += end + 2;
    } else if (rest[0] === '[') {
      const m = INDEX.exec(rest.slice(1));
      if (!m) return invalid(i);
      const index = Number(m[1]);
      if (!Number.isSafeInteger(index)) return invalid(i);
      segments.push({ kind: 'index', index });
      i += 1 + m[0].length;
    } else {
      return invalid(i);
    }
  }
  return { ok: true, segments, deprecatedRoot: root === '$policy_target' };
}

/** Index of the unescaped closing quote of a JSON string whose body starts at `from`. */
function closingQuote(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
    else if (c < 0x20) return -1;
  }
  return -1;
}

function invalid(offset: number): ParsedPath {
  return {
    ok: false,
    reason: HOST_ERRORS.transformInvalid,
    message: `transform.path is malformed at offset ${offset} (§5.2 grammar)`,
  };
}

/** Render segments back into a canonical path string (used by redaction records). */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '$target';
  for (const s of segments) {
    if (s.kind === 'index') out += `[${s.index}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s.name)) out += `.${s.name}`;
    else out += `[${JSON.stringify(s.name)}]`;
  }
  return out;
}
