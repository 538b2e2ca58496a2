import { formatPath, type PathSegment, parseTransformPath, pathsOverlap } from './path.ts';
import { isPlainObject } from './plain.ts';
import { copied, resolvePath, withTarget } from './transform.ts';
import type { AgentContext, ApprovalRedactor } from './types.ts';

/**
 * A ready-made §9 approval redactor: replaces each listed `$target…` path
 * with `replacement` (write-back mirrored into the aliased field, §4.3) and
 * documents what it removed as `extensions.<namespace>.redacted` (§9, §14),
 * in canonical §5.2 spelling. Paths that do not resolve are left alone.
 *
 * Every path must parse under the §5.2 grammar: a path that does not cannot
 * say what to hide, so the redactor refuses to exist (a TypeError naming the
 * path and the offset) rather than silently sending the secret on.
 */
export function redactPaths(
  paths: readonly string[],
  opts: { namespace?: string; replacement?: unknown } = {},
): ApprovalRedactor {
  const namespace = opts.namespace ?? 'host';
  const replacement = opts.replacement ?? '[redacted]';
  const parsed = paths.map(parseRedactionPath);
  return (context: AgentContext): AgentContext => {
    let ctx = context;
    const removed: string[] = [];
    for (const segments of parsed) {
      const target = replaceAt(ctx.target, segments, replacement);
      if (target === undefined) continue;
      ctx = withTarget(ctx, target);
      removed.push(formatPath(segments));
    }
    if (removed.length === 0) return ctx;
    const extensions = isPlainObject(ctx.extensions) ? { ...ctx.extensions } : {};
    const own = isPlainObject(extensions[namespace]) ? extensions[namespace] : {};
    extensions[namespace] = { ...own, redacted: removed };
    return copied(ctx, { ...ctx, extensions });
  };
}

/** A redacted path an edit reaches: as given, and in canonical §5.2 spelling (null outside the grammar). */
export type TouchedRedaction = { path: string; canonical: string | null };

/**
 * The first of `redactedPaths` an edit at `edit` would read or rewrite (§9:
 * the reviewer never saw that value), or null when the edit is clear of them
 * all. A redacted path outside the §5.2 grammar (stored before the grammar
 * was enforced) cannot be shown clear of any edit, so every edit touches it
 * (fail closed); it comes back with `canonical: null`.
 */
export function redactionTouchedByEdit(
  edit: readonly PathSegment[],
  redactedPaths: readonly string[],
): TouchedRedaction | null {
  for (const path of redactedPaths) {
    const parsed = parseTransformPath(path);
    if (!parsed.ok) return { path, canonical: null };
    if (pathsOverlap(edit, parsed.segments)) {
      return { path, canonical: formatPath(parsed.segments) };
    }
  }
  return null;
}

function parseRedactionPath(path: string): PathSegment[] {
  const parsed = parseTransformPath(path);
  if (!parsed.ok) throw new TypeError(`redaction path ${JSON.stringify(path)}: ${parsed.message}`);
  return parsed.segments;
}

/**
 * The target with the location at `segments` replaced (nodes on the way
 * copied), or undefined when the path does not resolve. The interception
 * point's transform ban (§4.3) does not apply: redaction is not a verdict,
 * and a liftable deny at agent_startup is consulted like any other.
 */
function replaceAt(target: unknown, segments: readonly PathSegment[], value: unknown): unknown {
  return resolvePath(target, segments) ? copyWith(target, segments, value) : undefined;
}

/** `node` with `segments` (known to resolve) replaced by `value`. */
function copyWith(node: unknown, segments: readonly PathSegment[], value: unknown): unknown {
  if (segments.length === 0) return value;
  const [head, ...rest] = segments;
  if (head.kind === 'index') {
    const copy = copied(node as unknown[], (node as unknown[]).slice());
    copy[head.index] = copyWith(copy[head.index], rest, value);
    return copy;
  }
  const obj = node as Record<string, unknown>;
  return copied(obj, { ...obj, [head.name]: copyWith(obj[head.name], rest, value) });
}
