import Link from '@/components/ui/Link';
import { Suspense } from 'react';
import { SearchBox } from './SearchBox';

function Logo() {
  return (
    <Link href="/" className="flex items-center gap-2 whitespace-nowrap text-[14px] font-semibold tracking-tight text-white" data-testid="home-link">
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

/** The fleet and search links, and the search box. */
function Browse() {
  return (
    <>
      <nav className="flex items-center gap-4 text-[13px] text-zinc-300">
        <Link href="/" className="hover:text-white">
          Fleet
        </Link>
        <Link href="/search" className="hover:text-white">
          Search
        </Link>
      </nav>
      <div className="flex w-full min-w-0 justify-end sm:ml-auto sm:max-w-md">
        <Suspense fallback={<div className="h-8 w-full max-w-md rounded-md bg-zinc-800" />}>
          <SearchBox />
        </Suspense>
      </div>
    </>
  );
}

/**
 * `signedIn`: the request carries a dashboard session, so a sign-out button is shown. `browse`: the
 * request may read the dashboard, so the fleet and search links and the search box are shown (not on
 * the sign-in page, where the search box would take a key typed into it into the URL).
 */
export function AppHeader({ signedIn = false, browse = true }: { signedIn?: boolean; browse?: boolean }) {
  return (
    <header className="palette-fixed relative z-20 sm:sticky sm:top-0 border-b border-zinc-800 bg-zinc-900">
      <a href="#main" className="sr-only rounded-md bg-white px-3 py-1.5 text-[13px] font-medium text-zinc-900 focus:not-sr-only focus:absolute focus:left-3 focus:top-2 focus:z-30" data-testid="skip-link">
        Skip to content
      </a>
      <div className="mx-auto flex min-h-12 max-w-[1400px] flex-wrap items-center gap-x-6 gap-y-2 px-4 py-2 sm:flex-nowrap sm:px-6 sm:py-0">
        <Logo />
        {browse ? <Browse /> : null}
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
