import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { getCurrentUser, orNull } from '@/lib/server/auth/session';
import { AppHeader } from './components/app-header';
import { LogIntegrityAlert } from './components/log-alert';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Checkpoint', template: '%s · Checkpoint' },
  description: 'The approval workflow for AI agents.',
  icons: { icon: '/favicon.svg' },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // A database outage must not take down every page (e.g. /status explains it).
  const user = await getCurrentUser().catch(orNull);
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm"
        >
          Skip to content
        </a>
        {user && <AppHeader user={user} />}
        {user?.roles.includes('admin') ? <LogIntegrityAlert /> : null}
        <main id="main" className="mx-auto max-w-7xl px-4 py-6">
          {children}
        </main>
      </body>
    </html>
  );
}
