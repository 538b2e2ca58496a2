import Link from 'next/link';
import { Fragment } from 'react';

/** One step of a breadcrumb trail; the current page (the last step) has no link. */
export type Crumb = { label: string; href?: string };

/** The trail above a detail page's header: `Hosts / name / Webhooks`. */
export function Breadcrumb({ trail }: { trail: Crumb[] }) {
  return (
    <nav aria-label="Breadcrumb" className="mb-2 text-sm">
      {trail.map((crumb, i) => (
        <Fragment key={crumb.href ?? `current:${crumb.label}`}>
          {i > 0 && <span className="text-slate-400"> / </span>}
          {crumb.href ? (
            <Link href={crumb.href} className="text-indigo-700 hover:underline">
              {crumb.label}
            </Link>
          ) : (
            <span className="text-slate-600">{crumb.label}</span>
          )}
        </Fragment>
      ))}
    </nav>
  );
}
