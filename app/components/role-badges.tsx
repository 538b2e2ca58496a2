const styles: Record<string, string> = {
  admin: 'bg-indigo-50 text-indigo-700 ring-indigo-200',
  reviewer: 'bg-sky-50 text-sky-700 ring-sky-200',
  auditor: 'bg-violet-50 text-violet-700 ring-violet-200',
};

/** The roles a user holds, as small labels ("no roles" when none). */
export function RoleBadges({ roles }: { roles: readonly string[] }) {
  if (roles.length === 0) return <span className="text-xs text-slate-500">no roles</span>;
  return (
    <span className="inline-flex flex-wrap gap-1">
      {roles.map((r) => (
        <span
          key={r}
          className={`rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${styles[r] ?? 'bg-slate-50 text-slate-700 ring-slate-200'}`}
        >
          {r}
        </span>
      ))}
    </span>
  );
}

/** Active / Disabled. */
export function StatusBadge({ disabled }: { disabled: boolean }) {
  return disabled ? (
    <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-600 ring-1 ring-inset ring-slate-300">
      Disabled
    </span>
  ) : (
    <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-700 ring-1 ring-inset ring-emerald-200">
      Active
    </span>
  );
}
