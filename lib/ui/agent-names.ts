import type { AgentRow } from '@/db/schema';
import type { AgentName } from './api-types';

/** GET /api/agents?view=names, and the search page's prefetch of it: an agent filter's options. */
export function agentNames(agents: readonly AgentRow[]): AgentName[] {
  return agents.map((a) => ({ id: a.id, name: a.name, runtime: a.source_runtime }));
}
