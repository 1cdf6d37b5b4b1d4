import { useSyncExternalStore } from 'react';

const subscribe = () => () => {};

/**
 * False while the server renders and while the browser hydrates that render, true from the render
 * right after: what a view draws only in the browser (the server's snapshot is false, the client's
 * true, and React re-renders with the client's once hydration is done).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(subscribe, () => true, () => false);
}
