'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { routes } from '@/lib/ui/routes';
import { SearchIcon } from '../ui/icons';

/**
 * The header's fact search: submits to `/search?q=` (a plain GET form before hydration, a client
 * navigation after; the field is uncontrolled, so hydration never resets it); "/" focuses it.
 */
export function SearchBox() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const current = pathname === '/search' ? (params.get('q') ?? '') : '';
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing = target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT');
      if (event.key === '/' && !typing) {
        event.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <form
      role="search"
      action="/search"
      method="get"
      className="relative w-full max-w-md"
      onSubmit={(event) => {
        event.preventDefault();
        // Read the field itself, not the state: text typed before hydration must still count.
        const q = String(new FormData(event.currentTarget).get('q') ?? '').trim();
        if (q) router.push(routes.search(q, pathname === '/search' ? (params.get('agent') ?? undefined) : undefined));
      }}
    >
      <span aria-hidden className="pointer-events-none absolute left-2.5 top-1/2 flex -translate-y-1/2 text-zinc-400">
        <SearchIcon />
      </span>
      <input
        ref={input}
        key={current}
        type="search"
        name="q"
        defaultValue={current}
        placeholder="When did this fact first appear?"
        aria-label="Search memory history"
        data-testid="global-search"
        autoComplete="off"
        spellCheck={false}
        className="h-8 w-full rounded-md border border-zinc-700 bg-zinc-800 pl-7 pr-8 text-[13px] text-zinc-100 placeholder:text-zinc-400 focus:border-zinc-500 focus:bg-zinc-900 focus:outline-none"
      />
      <kbd className="pointer-events-none absolute right-2 top-1/2 -translate-y-1/2 rounded border border-zinc-600 px-1 font-mono text-[10px] text-zinc-400">
        /
      </kbd>
    </form>
  );
}
