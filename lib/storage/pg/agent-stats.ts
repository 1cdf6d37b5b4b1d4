/**
 * Every agent in scope with its dashboard stats (lib/history/queries/agents.ts) on PostgreSQL:
 * the same sources: live records from the live-facet counters, the 28-day activity from the ledger entries' op counts.
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
      (SELECT count(DISTINCT v.record_id) FROM record_versions v WHERE v.agent_id = a.id AND v.synced_at >= ${s})
        - (SELECT count(*) FROM record_versions m WHERE m.agent_id = a.id AND m.synced_at >= ${s} AND m.op = 'move'
            AND EXISTS (SELECT 1 FROM record_versions q WHERE q.agent_id = m.agent_id AND q.record_id = m.moved_from AND q.synced_at >= ${s}))
        AS changed_records_7d
    FROM agents a WHERE true ${tenantCondition(p, 'a', params.tenantId)}
      ${params.agentId === undefined ? '' : `AND a.id = ${p.add(params.agentId.toLowerCase())}`}
    ORDER BY a.created_at, a.id COLLATE "C"`, p);
  const ap = new Params();
  const activity = await rows<DayActivity & { agent_id: string }>(db, `
    SELECT e.agent_id, substr(e.created_at, 1, 10) AS day,
      sum(e.creates)::int AS creates, sum(e.updates)::int AS updates, sum(e.deletes)::int AS deletes, sum(e.moves)::int AS moves
    FROM ledger_entries e JOIN agents a ON a.id = e.agent_id
    WHERE e.created_at >= ${ap.add(firstDay)} ${tenantCondition(ap, 'a', params.tenantId)}
      ${params.agentId === undefined ? '' : `AND a.id = ${ap.add(params.agentId.toLowerCase())}`}
    GROUP BY e.agent_id, day`, ap);
  const byKey = new Map(activity.map((a) => [`${a.agent_id}|${a.day}`, a]));
  return agents.map((row) => ({
    ...row,
    activity: Array.from({ length: 28 }, (_, i) => {
      const day = utcDay(now.getTime() - (27 - i) * DAY);
      const hit = byKey.get(`${row.id}|${day}`);
      return { day, creates: hit?.creates ?? 0, updates: hit?.updates ?? 0, deletes: hit?.deletes ?? 0, moves: hit?.moves ?? 0 };
    }),
  }));
}
