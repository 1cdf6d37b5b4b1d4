import { notFound } from 'next/navigation';
import { CompareProblem } from '@/components/compare/CompareProblem';
import { CompareView } from '@/components/compare/CompareView';
import { LedgerError } from '@/lib/ledger/errors';
import { zodErrorInWords } from '@/lib/server/issue-words';
import { pageTitle } from '@/lib/ui/page-title';
import { isPastLatest } from '@/lib/ui/sequence-words';
import { requestScope, storage } from '../../../api/_lib/context';
import { comparePageQuery } from '../../../api/_lib/schemas';
import { COMPARE_FIRST_LIMIT } from '@/components/compare/limits';
import { scopedAgent } from '../../../_lib/scoped-agent';
import { changedFilePlan } from './changed-files';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export async function generateMetadata({ params, searchParams }: Props) {
  const { id } = await params;
  const q = await searchParams;
  const [from, to] = [one(q.from), one(q.to)];
  const what = from !== undefined && to !== undefined ? `Compare #${from.slice(0, 20)} → #${to.slice(0, 20)}` : 'Compare';
  return { title: pageTitle(what, (await scopedAgent(id))?.name) };
}

/** The workspace's net change between two sequences (`?from=A&to=B`), or what is wrong with the two asked for (a 404 past the latest). */
export default async function ComparePage({ params, searchParams }: Props) {
  const { id } = await params;
  const query = await searchParams;
  const store = await storage();
  const tenantId = await requestScope();
  const agent = await store.getAgent({ agentId: id, tenantId });
  const latest = agent?.latest_sequence ?? null;
  // A sequence the agent has not synced is this page's 404 (not-found.tsx says which, in words).
  if (agent && [one(query.from), one(query.to)].some((v) => isPastLatest(v, latest))) notFound();
  if (!agent || latest === null) return <CompareProblem agentId={id} latest={null} message="This agent has never synced: there is nothing to compare." />;
  // Nothing asked yet (the address without a query): the form, holding the last sync's change, and no error.
  if (Object.keys(query).length === 0) {
    return (
      <CompareProblem agentId={agent.id} latest={latest} prompt from={Math.max(0, latest - 1)} to={latest}
        message="Pick two sequences: the workspace's net change between them — memories created, updated, moved and deleted, and files added, changed and removed." />
    );
  }
  const input = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, one(v) ?? '']));
  const parsed = comparePageQuery.safeParse(input);
  if (!parsed.success) return <CompareProblem agentId={agent.id} latest={latest} message={zodErrorInWords(parsed.error, input)} />;
  const { from, to } = parsed.data;
  const limit = parsed.data.limit ?? COMPARE_FIRST_LIMIT;
  try {
    const comparison = (await store.compareWorkspace({ agentId: agent.id, from, to, limit, tenantId }))!;
    return <CompareView agentId={agent.id} latest={latest} comparison={comparison} changedFiles={changedFilePlan(comparison)} />;
  } catch (error) {
    if (error instanceof LedgerError) return <CompareProblem agentId={agent.id} latest={latest} message={error.message} from={from} to={to} />;
    throw error;
  }
}
