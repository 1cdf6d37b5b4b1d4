import Link from 'next/link';
import { Suspense } from 'react';
import { SearchBox } from './SearchBox';

function Logo() {
  return (
    <Link href="/" className="flex items-center gap-2 text-[14px] font-semibold tracking-tight text-white" data-testid="home-link">
      <svg aria-hidden width="18" height="18" viewBox="0 0 18 18" className="text-emerald-400">
        <circle cx="4" cy="4" r="2.2" fill="currentColor" />
        <circle cx="4" cy="14" r="2.2" fill="currentColor" opacity="0.55" />
        <circle cx="14" cy="9" r="2.2" fill="currentColor" />
        <path d="M4 6.2v5.6M5.8 5.2l6.4 3M5.8 12.8l6.4-3" stroke="currentColor" strokeWidth="1.3" fill="none" opacity="0.8" />
      </svg>
      ALF Lineage
    </Link>
  );
}

/** `signedIn`: the request carries a dashboard session, so a sign-out button is shown. */
export function AppHeader({ signedIn = false }: { signedIn?: boolean }) {
  return (
    <header className="sticky top-0 z-20 border-b border-zinc-800 bg-zinc-900">
      <div className="mx-auto flex h-12 max-w-[1400px] items-center gap-6 px-6">
        <Logo />
        <nav className="flex items-center gap-4 text-[13px] text-zinc-300">
          <Link href="/" className="hover:text-white">
            Fleet
          </Link>
          <Link href="/search" className="hover:text-white">
            Search
          </Link>
        </nav>
        <div className="ml-auto flex w-full max-w-md justify-end">
          <Suspense fallback={<div className="h-8 w-full max-w-md rounded-md bg-zinc-800" />}>
            <SearchBox />
          </Suspense>
        </div>
        {signedIn ? (
          <form method="post" action="/logout">
            <button type="submit" className="whitespace-nowrap text-[13px] text-zinc-300 hover:text-white" data-testid="sign-out">
              Sign out
            </button>
          </form>
        ) : null}
      </div>
    </header>
  );
}
