import { formatPath, parseTransformPath } from './path';
import { isPlainObject } from './plain';
import { applyTransform, resolvePath } from './transform';
import type { AgentContext, ApprovalRedactor } from './types';

/**
 * A ready-made §9 approval redactor: replaces each listed `$target…` path
 * with `replacement` (write-back mirrored into the aliased field, §4.3) and
 * documents what it removed as `extensions.<namespace>.redacted` (§9, §14).
 * Paths that do not resolve are left alone.
 */
export function redactPaths(
  paths: readonly string[],
  opts: { namespace?: string; replacement?: unknown } = {},
): ApprovalRedactor {
  const namespace = opts.namespace ?? 'host';
  const replacement = opts.replacement ?? '[redacted]';
  return (context: AgentContext): AgentContext => {
    let ctx = context;
    const removed: string[] = [];
    for (const path of paths) {
      const parsed = parseTransformPath(path);
      if (!parsed.ok || !resolvePath(ctx.target, parsed.segments)) continue;
      const applied = applyTransform(ctx, { path, value: replacement });
      if (!applied.ok) continue;
      ctx = applied.context;
      removed.push(formatPath(parsed.segments));
    }
    if (removed.length === 0) return ctx;
    const extensions = isPlainObject(ctx.extensions) ? { ...ctx.extensions } : {};
    const own = isPlainObject(extensions[namespace]) ? extensions[namespace] : {};
    extensions[namespace] = { ...own, redacted: removed };
    return { ...ctx, extensions };
  };
}
