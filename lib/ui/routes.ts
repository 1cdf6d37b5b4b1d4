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
  workspace: (id: string, seq?: number, file?: string) => withQuery(`${agent(id)}/workspace`, { seq, file }),
  compare: (id: string, from: number, to: number) => withQuery(`${agent(id)}/compare`, { from, to }),
  search: (q: string, agent?: string) => withQuery('/search', { q, agent }),
};
