'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback } from 'react';

type Updates = Record<string, string | number | null | undefined>;

/**
 * View state kept in the query string, so every view is shareable and the back button works.
 * `set` pushes a history entry; `{ replace: true }` for keystroke-level changes.
 */
export function useUrlState() {
  const params = useSearchParams();
  const pathname = usePathname();
  const router = useRouter();

  const get = useCallback((key: string): string | null => params.get(key), [params]);

  const set = useCallback(
    (updates: Updates, options: { replace?: boolean } = {}) => {
      const next = new URLSearchParams(params.toString());
      for (const [key, value] of Object.entries(updates)) {
        if (value === null || value === undefined || value === '') next.delete(key);
        else next.set(key, String(value));
      }
      const qs = next.toString();
      const href = qs ? `${pathname}?${qs}` : pathname;
      if (options.replace) router.replace(href, { scroll: false });
      else router.push(href, { scroll: false });
    },
    [params, pathname, router],
  );

  return { get, set, params };
}
