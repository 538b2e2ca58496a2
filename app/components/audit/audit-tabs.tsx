import Link from 'next/link';

const TABS = [
  { href: '/audit', label: 'Search', key: 'search' },
  { href: '/audit/overview', label: 'Overview', key: 'overview' },
] as const;

/** Switches between the audit search and the overview charts. */
export function AuditTabs({ current }: { current: 'search' | 'overview' }) {
  return (
    <nav aria-label="Audit" className="mb-4 flex gap-1 border-b border-slate-200">
      {TABS.map((t) => (
        <Link
          key={t.key}
          href={t.href}
          aria-current={t.key === current ? 'page' : undefined}
          className={`-mb-px border-b-2 px-3 py-1.5 text-sm font-medium ${
            t.key === current
              ? 'border-indigo-600 text-indigo-700'
              : 'border-transparent text-slate-600 hover:text-slate-900'
          }`}
        >
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
