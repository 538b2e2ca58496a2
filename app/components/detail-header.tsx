import type { ReactNode } from 'react';
import { Breadcrumb, type Crumb } from './breadcrumb';
import { PageHeader } from './page-header';

/**
 * The head of an admin detail page (a host, a user): the breadcrumb trail,
 * the title, and a description line that carries the entity's badges.
 */
export function DetailHeader({
  trail,
  title,
  children,
}: {
  trail: Crumb[];
  title: string;
  children: ReactNode;
}) {
  return (
    <>
      <Breadcrumb trail={trail} />
      <PageHeader
        title={title}
        description={<span className="inline-flex flex-wrap items-center gap-2">{children}</span>}
      />
    </>
  );
}
