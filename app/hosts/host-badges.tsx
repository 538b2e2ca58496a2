/** Built-in / Archived markers next to a host's name. */
export function HostBadges({ builtIn, archived }: { builtIn: boolean; archived: boolean }) {
  return (
    <>
      {builtIn && (
        <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700 ring-1 ring-inset ring-slate-300">
          built-in
        </span>
      )}
      {archived && (
        <span className="rounded bg-amber-50 px-1.5 py-0.5 text-xs font-medium text-amber-800 ring-1 ring-inset ring-amber-200">
          archived
        </span>
      )}
    </>
  );
}
