'use client';

import { buttonClass } from './components/button-class';

/** A page that failed to render: say so plainly, offer a retry, leak nothing. */
export default function ErrorPage({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <div role="alert" className="mx-auto mt-16 max-w-md text-center">
      <p className="text-sm font-semibold text-slate-500">Error</p>
      <h1 className="mt-1 text-xl font-semibold tracking-tight">This page could not be shown</h1>
      <p className="mt-2 text-sm text-slate-600">
        Something went wrong on our side. Try again; if it keeps failing, check{' '}
        <a href="/status" className="text-indigo-700 underline">
          the status page
        </a>
        {error.digest ? (
          <>
            {' '}
            and quote reference <code className="text-xs">{error.digest}</code>
          </>
        ) : null}
        .
      </p>
      <button type="button" onClick={reset} className={buttonClass('secondary', 'mt-6')}>
        Try again
      </button>
    </div>
  );
}
