/** What the Changes panels draw from the feed's pages (pure, so merging and wording are tested once). */
import type { ChangeGroup, Changes } from './api-types';

/** How many changes the feed holds, across its day and agent groups. */
export function changeCount(changes: Pick<Changes, 'groups'>): number {
  return changes.groups.reduce((n, g) => n + g.changes.length, 0);
}

/**
 * The groups of consecutive feed pages as one feed: a (day, agent) group cut by a page boundary is
 * joined back, its changes in page order; days newest first, agents by name within a day.
 */
export function mergePages(pages: Pick<Changes, 'groups'>[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const page of pages) {
    for (const group of page.groups) {
      const key = `${group.day}|${group.agent_id}`;
      const known = groups.get(key);
      if (known) known.changes.push(...group.changes);
      else groups.set(key, { ...group, changes: [...group.changes] });
    }
  }
  return [...groups.values()].sort((a, b) =>
    (a.day === b.day ? a.agent_name.localeCompare(b.agent_name) || a.agent_id.localeCompare(b.agent_id) : b.day.localeCompare(a.day)));
}
