/**
 * The first page of the agent page's open tab, read on the server under the key the tab asks for
 * (its sequences, its memories with the URL's filters, its changes), so the document already holds
 * the list: the page's largest paint is the server's HTML, not a fetch made after hydration
 * (bench/ui-scale: LCP 1.3–1.7 s with the list drawn in the browser). A URL the API would refuse
 * prefetches nothing: the tab asks the API and shows its error.
 */
import { changeFilters } from '@/components/changes/change-params';
import { currentTab, recordsParams, type ParamReader } from '@/components/agent/tab-params';
import type { TenantScope } from '@/lib/history/queries';
import { withQuery } from '@/lib/ui/api-client';
import { CHANGES_PAGE, RECORDS_PAGE, SEQUENCES_PAGE } from '@/lib/ui/page-window';
import { queryKeys } from '@/lib/ui/query-keys';
import { storage } from '../../api/_lib/context';
import { changesQuery, recordsQuery } from '../../api/_lib/schemas';
import type { Prefetch } from '../../_lib/prefetch';

/** An infinite query's data holding its first page, as react-query keeps it. */
const firstPage = <P>(page: P | null, pageParam: unknown) => (page === null ? null : { pages: [page], pageParams: [pageParam] });

/** The API's query schema applied to the parameters the browser would send (api-client): null when it would answer 400. */
function asApiWould<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, params: Parameters<typeof withQuery>[1]): T | null {
  const sent = Object.fromEntries(new URL(withQuery('http://x/', params)).searchParams);
  const parsed = schema.safeParse(sent);
  return parsed.success ? parsed.data : null;
}

export async function agentTabPrefetch({ agentId, tenantId, get }: { agentId: string; tenantId: TenantScope; get: ParamReader }): Promise<Prefetch[]> {
  const s = await storage();
  const tab = currentTab(get('tab'));
  if (tab === 'timeline') {
    return [[queryKeys.sequences(agentId), async () => firstPage(await s.getSequences({ agentId, tenantId, limit: SEQUENCES_PAGE }), null)]];
  }
  if (tab === 'memories') {
    const { at, filters } = recordsParams(get);
    const query = asApiWould(recordsQuery, { at, ...filters, limit: RECORDS_PAGE });
    if (!query) return [];
    return [[queryKeys.records(agentId, at, filters), async () => firstPage(await s.getRecordsAt({ agentId, tenantId, ...query }), { cursor: null })]];
  }
  const filters = changeFilters(get, agentId);
  const query = asApiWould(changesQuery, { ...filters, limit: CHANGES_PAGE });
  if (!query) return [];
  return [[queryKeys.changes(filters, CHANGES_PAGE), async () => firstPage(
    await s.getChanges({ tenantId, since: query.since, now: new Date(), agentId, op: query.op, limit: query.limit }),
    { cursor: null },
  )]];
}
