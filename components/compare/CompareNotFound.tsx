'use client';

import { useParams, useSearchParams } from 'next/navigation';
import { useAgent } from '@/lib/ui/hooks/use-agents';
import { isPastLatest, sequenceMissingWords } from '@/lib/ui/sequence-words';
import { CompareProblem } from './CompareProblem';
import { visibleName } from '../ui/SafeName';

/**
 * The compare page's 404 (`?from=`/`?to=` past the agent's latest, or an agent that never synced):
 * which sequence does not exist, in the API's words, and the form to compare sequences that do.
 */
export function CompareNotFound() {
  const { id } = useParams<{ id: string }>();
  const query = useSearchParams();
  const { agent } = useAgent(id);
  if (!agent) return null;
  const latest = agent.latest_sequence;
  const missing = [query.get('from'), query.get('to')].find((v) => isPastLatest(v, latest)) ?? '';
  const number = (v: string | null) => (v !== null && /^\d+$/.test(v) ? Number(v) : null);
  const message = latest === null
    ? `${visibleName(agent.name)} has never synced, so there is nothing to compare.`
    : sequenceMissingWords({ seq: missing, agentName: visibleName(agent.name), latest });
  return <CompareProblem agentId={id} latest={latest} message={message} from={number(query.get('from'))} to={number(query.get('to'))} />;
}
