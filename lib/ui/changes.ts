/** What the Changes panels say about the feed they got (pure, so the wording is tested once). */
import type { Changes } from './api-types';

/** How many changes the feed holds, across its day and agent groups. */
export function changeCount(changes: Pick<Changes, 'groups'>): number {
  return changes.groups.reduce((n, g) => n + g.changes.length, 0);
}

/**
 * The notice for a feed the API cut short (`truncated`: it returns at most its first 1000 changes,
 * newest first), or null when the feed is whole. An agent's panel is already one agent's.
 */
export function truncationNotice(changes: Pick<Changes, 'groups' | 'truncated'>, scope: 'fleet' | 'agent'): string | null {
  if (!changes.truncated) return null;
  const narrow = scope === 'fleet' ? 'narrow the window or filter by op or agent' : 'narrow the window or filter by op';
  return `Showing the first ${changeCount(changes)} changes (newest first); older ones in this window are not listed: ${narrow}.`;
}
