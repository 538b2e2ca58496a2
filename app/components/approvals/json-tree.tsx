import type { ReactNode } from 'react';
import { isMemberName } from '@checkpoint/agent-hooks';

/**
 * A JSON value as a collapsible tree (native <details>, no script needed).
 * Nodes under `highlight` (e.g. the target) are tinted; nodes whose path is
 * in `redacted` are marked as redacted. Paths are spelled like canonical
 * §5.2 paths without the `$` (`target.to`, `messages[0]`, `target.0` for the
 * key "0"), with the engine's member-name rule, so they compare as strings
 * with `formatPath` output. A key outside member-name has no §5.2 path; it is
 * shown as `["a b"]`, a spelling no redaction path can take.
 */
export function JsonTree({
  value,
  highlight = [],
  redacted = [],
  rootPath = '',
}: {
  value: unknown;
  highlight?: string[];
  redacted?: string[];
  rootPath?: string;
}) {
  return (
    <div className="overflow-x-auto font-mono text-xs leading-5 text-slate-800">
      <Node
        path={rootPath}
        value={value}
        depth={0}
        ctx={{ highlight, redacted, budget: { left: NODE_BUDGET } }}
      />
    </div>
  );
}

/** Contexts may be megabytes (§12.3): the page stays usable by rendering a bounded tree. */
const NODE_BUDGET = 1500;
const MAX_CHILDREN = 100;

type Ctx = { highlight: string[]; redacted: string[]; budget: { left: number } };

function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (isMemberName(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

function under(path: string, roots: string[]): boolean {
  return roots.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[`));
}

function Node({
  path,
  value,
  ctx,
  label,
  depth,
}: {
  path: string;
  value: unknown;
  ctx: Ctx;
  label?: ReactNode;
  depth: number;
}) {
  ctx.budget.left--;
  const isRoot = ctx.highlight.includes(path);
  const tint = isRoot ? 'rounded bg-amber-50 ring-1 ring-amber-200' : '';
  const isRedacted = ctx.redacted.includes(path);
  const key = label !== undefined && <span className="text-slate-500">{label}: </span>;
  const badge = isRoot && (
    <span className="ml-2 rounded bg-amber-200 px-1 text-[10px] font-sans font-semibold uppercase text-amber-900">
      target
    </span>
  );
  if (isRedacted) {
    return (
      <div className={tint} data-path={path} data-redacted="true">
        {key}
        <span
          className="rounded bg-slate-200 px-1 text-slate-700"
          title="Removed by the host's redaction policy"
        >
          ▒ redacted
        </span>
        <span className="ml-1 text-slate-400">{JSON.stringify(value)}</span>
      </div>
    );
  }
  if (value !== null && typeof value === 'object') {
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) {
      return (
        <div className={tint} data-path={path}>
          {key}
          <span className="text-slate-500">{`${open}${close}`}</span>
          {badge}
        </div>
      );
    }
    const hot = under(path, ctx.highlight);
    // Open what matters (the target, the top levels, small values); the rest one click away.
    const expanded = hot || depth < 2 || entries.length <= 20;
    const shown = entries.slice(0, MAX_CHILDREN);
    return (
      <details open={expanded} className={tint} data-path={path}>
        <summary className="cursor-pointer select-none hover:bg-slate-50">
          {key}
          <span className="text-slate-500">{open}</span>
          <span className="text-slate-400">
            {' '}
            {entries.length} {Array.isArray(value) ? 'item' : 'key'}
            {entries.length === 1 ? '' : 's'}
          </span>
          {badge}
        </summary>
        <div className={`ml-4 border-l pl-2 ${hot ? 'border-amber-300' : 'border-slate-200'}`}>
          {ctx.budget.left <= 0 ? (
            <div className="text-slate-400">
              … not shown: the context is too large to show whole
            </div>
          ) : (
            shown.map(([k, v]) => (
              <Node
                key={String(k)}
                path={childPath(path, k)}
                value={v}
                depth={depth + 1}
                ctx={ctx}
                label={typeof k === 'number' ? k : JSON.stringify(k)}
              />
            ))
          )}
          {entries.length > shown.length && ctx.budget.left > 0 && (
            <div className="text-slate-400">… {entries.length - shown.length} more not shown</div>
          )}
        </div>
        <span className="text-slate-500">{close}</span>
      </details>
    );
  }
  return (
    <div className={tint} data-path={path}>
      {key}
      <Scalar value={value} />
      {badge}
    </div>
  );
}

function Scalar({ value }: { value: unknown }) {
  if (typeof value === 'string') {
    return (
      <span className="whitespace-pre-wrap break-all text-emerald-800">
        {JSON.stringify(value)}
      </span>
    );
  }
  if (typeof value === 'number') return <span className="text-indigo-700">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="text-violet-700">{String(value)}</span>;
  return <span className="text-slate-500">null</span>;
}
