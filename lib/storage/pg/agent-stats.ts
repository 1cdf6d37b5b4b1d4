/**
 * Every agent in scope with its dashboard stats (lib/history/queries/agents.ts) on PostgreSQL:
 * the same sources: live records from the live-facet counters, the week's changed records from records_agent_changed_idx
 * less the week's moves, the 28-day activity from the per-day counts the ledger_entries trigger keeps (agent_day_activity).
 */
import type { TenantScope } from '@/lib/history/queries/common';
import type { AgentWithStats, DayActivity } from '@/lib/history/queries/agents';
import { Params, rows, tenantCondition, type Queryable } from './sql';

const DAY = 86_400_000;
const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

export async function listAgentsWithStats(db: Queryable, params: { tenantId?: TenantScope; now: Date; agentId?: string }): Promise<AgentWithStats[]> {
  const { now } = params;
  const since7 = new Date(now.getTime() - 7 * DAY).toISOString();
  const firstDay = utcDay(now.getTime() - 27 * DAY);
  const p = new Params();
  const s = p.add(since7);
  const agents = await rows<Omit<AgentWithStats, 'activity'>>(db, `
    SELECT a.id, a.name, a.source_runtime AS runtime, a.latest_sequence,
      (SELECT max(e.created_at) FROM ledger_entries e WHERE e.agent_id = a.id) AS last_sync_at,
      coalesce((SELECT f.count FROM record_facets f WHERE f.agent_id = a.id AND f.facet = 'live' AND f.value = ''), 0) AS live_records,
      (SELECT count(*) FROM ledger_entries e WHERE e.agent_id = a.id AND e.created_at >= ${s}) AS syncs_7d,
      (SELECT count(*) FROM records r WHERE r.agent_id = a.id AND r.last_changed_at >= ${s})
        - (SELECT count(*) FROM record_versions m WHERE m.agent_id = a.id AND m.moved_from IS NOT NULL AND m.synced_at >= ${s} AND m.op = 'move')
        AS changed_records_7d
    FROM agents a WHERE true ${tenantCondition(p, 'a', params.tenantId)}
      ${params.agentId === undefined ? '' : `AND a.id = ${p.add(params.agentId.toLowerCase())}`}
    ORDER BY a.created_at, a.id COLLATE "C"`, p);
  const ap = new Params();
  const activity = await rows<DayActivity & { agent_id: string }>(db, `
    SELECT d.agent_id, d.day, d.creates, d.updates, d.deletes, d.moves
    FROM agent_day_activity d JOIN agents a ON a.id = d.agent_id
    WHERE d.day >= ${ap.add(firstDay)} ${tenantCondition(ap, 'a', params.tenantId)}
      ${params.agentId === undefined ? '' : `AND a.id = ${ap.add(params.agentId.toLowerCase())}`}`, ap);
  const byKey = new Map(activity.map((a) => [`${a.agent_id}|${a.day}`, a]));
  return agents.map((row) => ({
    ...row,
    activity: Array.from({ length: 28 }, (_, i) => {
      const day = utcDay(now.getTime() - (27 - i) * DAY);
      const hit = byKey.get(`${row.id}|${day}`);
      return { day, creates: hit?.creates ?? 0, updates: hit?.updates ?? 0, deletes: hit?.deletes ?? 0, moves: hit?.moves ?? 0 };
    }),
    // Folded in each ingest's own transaction: never behind its ledger.
    index_behind: false,
  }));
}
