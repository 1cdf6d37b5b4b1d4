'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback } from 'react';

type Updates = Record<string, string | number | null | undefined>;

export interface SetOptions {
  /** Replace the current history entry instead of pushing one. */
  replace?: boolean;
  /**
   * `router` (the default): a router navigation, which in the app router fetches the route's RSC payload from the
   * server — for a change the page's server side answers (a title, a prefetch, a 404). `history`: the browser's History
   * API (`pushState` / `replaceState`), which the router follows (`useSearchParams` and `usePathname` update) without a
   * request — for view state the browser alone applies, such as a filter written at every keystroke. Back, Forward,
   * a reload and a shared link give the same view either way.
   */
  via?: 'router' | 'history';
}

/**
 * View state kept in the query string, so every view is shareable and the back button works.
 * `set` pushes a history entry; `{ replace: true }` replaces it, `{ via: 'history' }` keeps the server out of it.
 */
export function useUrlState() {
  const params = useSearchParams();
  const pathname = usePathname();
  const router = useRouter();

  const get = useCallback((key: string): string | null => params.get(key), [params]);

  const set = useCallback(
    (updates: Updates, options: SetOptions = {}) => {
      // Through the History API the address may be ahead of this render's params (keystrokes come faster than renders).
      const history = options.via === 'history';
      const next = new URLSearchParams(history ? window.location.search : params.toString());
      for (const [key, value] of Object.entries(updates)) {
        if (value === null || value === undefined || value === '') next.delete(key);
        else next.set(key, String(value));
      }
      const qs = next.toString();
      const href = qs ? `${pathname}?${qs}` : pathname;
      if (history) {
        if (options.replace) window.history.replaceState(null, '', href);
        else window.history.pushState(null, '', href);
      } else if (options.replace) router.replace(href, { scroll: false });
      else router.push(href, { scroll: false });
    },
    [params, pathname, router],
  );

  return { get, set, params };
}
