'use client';

import { useVersionKeys } from './use-version-keys';

/** The lineage's keyboard shortcuts (see use-version-keys) with a hint and a live status line. */
export function VersionKeys() {
  const status = useVersionKeys();
  return (
    <p className="text-[12px] text-muted" data-testid="version-keys">
      <kbd className="rounded border border-line px-1 font-mono">j</kbd> / <kbd className="rounded border border-line px-1 font-mono">k</kbd> next / previous
      version, <kbd className="rounded border border-line px-1 font-mono">y</kbd> copy its link
      <span role="status" aria-live="polite" className="ml-2 text-ink" data-testid="version-keys-status">
        {status}
      </span>
    </p>
  );
}
