/** Hrefs of the dashboard's pages, so links and tests agree on the URL scheme. */
import { withQuery } from './api-client';

const agent = (id: string) => `/agents/${encodeURIComponent(id)}`;

export const routes = {
  fleet: () => '/',
  agent: (id: string, tab?: 'timeline' | 'memories' | 'changes', params: Record<string, string | number | undefined> = {}) =>
    withQuery(agent(id), { tab: tab === 'timeline' ? undefined : tab, ...params }),
  sequence: (id: string, seq: number) => `${agent(id)}/sequences/${seq}`,
  lineage: (id: string, recordId: string, version?: number) =>
    `${agent(id)}/memories/${encodeURIComponent(recordId)}${version === undefined ? '' : `#v${version}`}`,
  /** With `section` (a record id), the link opens the file at that memory's section (`#record-…`). */
  workspace: (id: string, seq?: number, file?: string, section?: string) =>
    `${withQuery(`${agent(id)}/workspace`, { seq, file })}${section === undefined ? '' : `#${sectionAnchor(section)}`}`,
  compare: (id: string, from: number, to: number) => withQuery(`${agent(id)}/compare`, { from, to }),
  search: (q: string, agent?: string) => withQuery('/search', { q, agent }),
};

const SECTION_PREFIX = 'record-';

/** The element id (and hash) of a memory's section in the workspace's file view. */
export function sectionAnchor(recordId: string): string {
  return `${SECTION_PREFIX}${encodeURIComponent(recordId)}`;
}

/** The record id a `#record-…` hash names, or null. */
export function sectionFromHash(hash: string): string | null {
  const id = hash.replace(/^#/, '');
  if (!id.startsWith(SECTION_PREFIX)) return null;
  try {
    return decodeURIComponent(id.slice(SECTION_PREFIX.length)) || null;
  } catch {
    return null;
  }
}
