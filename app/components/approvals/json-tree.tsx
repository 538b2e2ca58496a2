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
  elided = {},
  page,
}: {
  value: unknown;
  highlight?: string[];
  redacted?: string[];
  rootPath?: string;
  /** Paths shown as a note instead of their value (e.g. the target's alias, shown elsewhere). */
  elided?: Record<string, string>;
  /** Long arrays are paged (issue 14): the page shown for one array, and the link to another. */
  page?: { path: string; from: number; href: (path: string, from: number) => string };
}) {
  return (
    <div className="overflow-x-auto font-mono text-xs leading-5 text-slate-800" data-json-tree="">
      <Node
        path={rootPath}
        value={value}
        depth={0}
        ctx={{ highlight, redacted, elided, page, budget: { left: NODE_BUDGET } }}
      />
    </div>
  );
}

/** Contexts may be megabytes (§12.3): the page stays usable by rendering a bounded tree. */
const NODE_BUDGET = 1500;
/** Items of an array shown at a time; the rest are paged. */
export const ARRAY_PAGE = 100;
/** A string longer than this shows its beginning, the rest behind "show all". */
export const LONG_STRING = 400;
/** Characters of one string the page holds at most; the download has the rest. */
const STRING_MAX = 20_000;

type Ctx = {
  highlight: string[];
  redacted: string[];
  elided: Record<string, string>;
  page?: { path: string; from: number; href: (path: string, from: number) => string };
  budget: { left: number };
};

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
  crowded = false,
}: {
  path: string;
  value: unknown;
  ctx: Ctx;
  label?: ReactNode;
  depth: number;
  /** One of many siblings (a long array's item): starts closed, one line each. */
  crowded?: boolean;
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
  const note = ctx.elided[path];
  if (note !== undefined) {
    return (
      <div data-path={path} data-elided="true">
        {key}
        <span className="font-sans italic text-slate-600">{note}</span>
      </div>
    );
  }
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
    const paged = ctx.page?.path === path;
    // Open what matters (the target, the top levels, small values, the array being paged).
    const expanded = paged || (!crowded && (hot || depth < 2 || entries.length <= 20));
    const from =
      paged && ctx.page
        ? Math.max(
            0,
            Math.min(Math.floor(ctx.page.from / ARRAY_PAGE) * ARRAY_PAGE, entries.length - 1),
          )
        : 0;
    const shown = entries.slice(from, from + ARRAY_PAGE);
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
                crowded={entries.length > 20}
              />
            ))
          )}
          {entries.length > ARRAY_PAGE && (
            <Pager
              path={path}
              from={from}
              total={entries.length}
              ctx={ctx}
              array={Array.isArray(value)}
            />
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

/**
 * Which part of a long array or object is shown, and links to the previous
 * and next part (ordinary links: the server renders the part asked for).
 */
function Pager({
  path,
  from,
  total,
  ctx,
  array,
}: {
  path: string;
  from: number;
  total: number;
  ctx: Ctx;
  array: boolean;
}) {
  const to = Math.min(from + ARRAY_PAGE, total);
  const what = array ? 'items' : 'keys';
  const link = (at: number, label: string) =>
    ctx.page ? (
      <a
        href={`${ctx.page.href(path, at)}`}
        className="font-sans text-indigo-700 underline hover:text-indigo-900"
        rel="nofollow"
      >
        {label}
      </a>
    ) : null;
  return (
    <nav
      aria-label={`Pages of ${path || 'the value'}`}
      data-pager={path}
      className="flex flex-wrap items-center gap-3 py-1 font-sans text-slate-600"
    >
      <span>
        {what} {from}–{to - 1} of {total}
      </span>
      {from > 0 && link(Math.max(0, from - ARRAY_PAGE), `← previous ${ARRAY_PAGE}`)}
      {to < total && link(to, `next ${Math.min(ARRAY_PAGE, total - to)} →`)}
      {!ctx.page && <span>(download the JSON for the rest)</span>}
    </nav>
  );
}

/** The beginning of a long string; all of it (up to STRING_MAX characters) one click away. */
function LongString({ value }: { value: string }) {
  const held = value.slice(0, STRING_MAX);
  return (
    <details className="group inline" data-long-string={value.length}>
      <summary className="cursor-pointer list-none">
        <span className="whitespace-pre-wrap break-all text-emerald-800 group-open:hidden">
          {`${JSON.stringify(value.slice(0, LONG_STRING)).slice(0, -1)}…`}
        </span>
        <span className="ml-1 font-sans text-indigo-700 underline">
          <span className="group-open:hidden">
            show all {value.length.toLocaleString('en')} characters
          </span>
          <span className="hidden group-open:inline">show less</span>
        </span>
      </summary>
      <span className="whitespace-pre-wrap break-all text-emerald-800">
        {value.length > STRING_MAX
          ? `${JSON.stringify(held).slice(0, -1)}…`
          : JSON.stringify(value)}
      </span>
      {value.length > STRING_MAX && (
        <span className="ml-1 font-sans text-slate-600">
          ({(value.length - STRING_MAX).toLocaleString('en')} more characters: download the JSON)
        </span>
      )}
    </details>
  );
}

function Scalar({ value }: { value: unknown }) {
  if (typeof value === 'string' && value.length > LONG_STRING) return <LongString value={value} />;
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
