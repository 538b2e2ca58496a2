'use client';

import { ErrorState } from '@/app/components/states';

export default function ApprovalsError({ reset }: { error: Error; reset: () => void }) {
  return (
    <ErrorState title="The approval queue could not be loaded.">
      <p>Nothing was decided. Check the database on the Status page, then</p>
      <button type="button" onClick={reset} className="mt-1 font-medium underline">
        try again
      </button>
    </ErrorState>
  );
}
