import Link from 'next/link';
import { buttonClass } from './components/button-class';

export default function NotFound() {
  return (
    <div className="mx-auto mt-16 max-w-md text-center">
      <p className="text-sm font-semibold text-slate-500">404</p>
      <h1 className="mt-1 text-xl font-semibold tracking-tight">Page not found</h1>
      <p className="mt-2 text-sm text-slate-600">There is nothing at this address.</p>
      <Link href="/" className={buttonClass('secondary', 'mt-6')}>
        Go to the start page
      </Link>
    </div>
  );
}
