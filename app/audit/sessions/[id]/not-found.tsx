import Link from 'next/link';
import { EmptyState } from '@/app/components/states';

export default function SessionNotFound() {
  return (
    <EmptyState title="No records for this session">
      Session ids are exact and per host.{' '}
      <Link href="/audit" className="text-indigo-700 hover:underline">
        Search the audit store
      </Link>
      .
    </EmptyState>
  );
}
