import Link from 'next/link';
import { Th } from './table';
import { Time } from './time';

/** The last column's header of an admin list: its buttons need no visible title. */
export function ActionsTh() {
  return (
    <Th>
      <span className="sr-only">Actions</span>
    </Th>
  );
}

/** When something last happened, or a muted "never". */
export function LastSeen({ value, now }: { value: Date | null; now: string }) {
  return value ? (
    <Time value={value.toISOString()} now={now} />
  ) : (
    <span className="text-slate-400">never</span>
  );
}

/** The row action of an admin list that opens the entity's own page. */
export function ManageLink({ href, name }: { href: string; name: string }) {
  return (
    <Link
      href={href}
      className="rounded px-1.5 py-0.5 text-sm font-medium text-indigo-700 hover:bg-indigo-50"
      aria-label={`Manage ${name}`}
    >
      Manage
    </Link>
  );
}
