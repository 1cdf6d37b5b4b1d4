import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { AppHeader } from '@/components/layout/AppHeader';
import { Providers } from '@/components/layout/Providers';
import { mayBrowse, signedIn } from './api/_lib/context';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'ALF Lineage', template: '%s · ALF Lineage' },
  description: 'Memory history and lineage for AI agents (Agent Life Format)',
  icons: { icon: '/favicon.svg' },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const [session, browse] = await Promise.all([signedIn(), mayBrowse()]);
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">
        <Providers>
          <AppHeader signedIn={session} browse={browse} />
          <main id="main" tabIndex={-1} className="mx-auto max-w-[1400px] px-4 pb-16 pt-6 outline-none sm:px-6">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
