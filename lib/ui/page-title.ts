/**
 * Page titles (the browser tab, history, bookmarks) that say which agent and which query: "Sequence
 * #4 · Vega", "“10.42.0” · Search". The root layout appends " · ALF Lineage".
 */
export function pageTitle(...parts: (string | null | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join(' · ');
}

/** The search page's title for the query `q` (clipped: a title is not the place for 500 characters). */
export function searchTitle(q: string | undefined): string {
  const text = q?.trim() ?? '';
  if (!text) return 'Search';
  return pageTitle(`“${text.length > 60 ? `${text.slice(0, 60)}…` : text}”`, 'Search');
}
