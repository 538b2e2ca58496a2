import Link from 'next/link';
import { EmptyState } from '@/app/components/states';

export default function RecordNotFound() {
  return (
    <EmptyState title="No such record">
      It may have been removed by retention.{' '}
      <Link href="/audit" className="text-indigo-700 hover:underline">
        Search the audit store
      </Link>
      .
    </EmptyState>
  );
}
