import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { tenantSql, type TenantScope } from './common';

export interface DayActivity {
  day: string;
  creates: number;
  updates: number;
  deletes: number;
  moves: number;
}

export interface AgentWithStats {
  id: string;
  name: string;
  runtime: string | null;
  latest_sequence: number | null;
  last_sync_at: string | null;
  live_records: number;
  syncs_7d: number;
  changed_records_7d: number;
  /** The last 28 UTC days, oldest first, zeros included. */
  activity: DayActivity[];
}

const DAY = 86_400_000;

/** `AND a.id = …` when one agent is asked for (its page), nothing for the fleet. */
const onlyAgent = (agentId: string | undefined) => (agentId === undefined ? sql`` : sql`AND a.id = ${agentId.toLowerCase()}`);

function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** One agent's dashboard stats (its pages' header), or null when it is not in scope. */
export function getAgentWithStats(params: { db: LineageDb; tenantId?: TenantScope; now: Date; agentId: string }): AgentWithStats | null {
  return listAgentsWithStats(params)[0] ?? null;
}

/**
 * Every agent in scope (or only `agentId`) with its dashboard stats, by creation time. `changed_records_7d` counts
 * memories: a record and the record it moved to in the window are one (each move in the window
 * whose moved-from record also changed in it counts one less; the moves are found on the partial
 * moves index — an agent's moves are few next to its versions of a week, 8,000 for the ui-scale big
 * agent — and `+p.synced_at` keeps the second lookup on the record's own versions).
 */
export function listAgentsWithStats(params: { db: LineageDb; tenantId?: TenantScope; now: Date; agentId?: string }): AgentWithStats[] {
  const { db, now } = params;
  const since7 = new Date(now.getTime() - 7 * DAY).toISOString();
  const firstDay = utcDay(now.getTime() - 27 * DAY);
  const rows = db.db.all<Omit<AgentWithStats, 'activity'>>(sql`
    SELECT a.id, a.name, a.source_runtime AS runtime, a.latest_sequence,
      (SELECT max(e.created_at) FROM ledger_entries e WHERE e.agent_id = a.id) AS last_sync_at,
      coalesce((SELECT f.count FROM record_facets f WHERE f.agent_id = a.id AND f.facet = 'live' AND f.value = ''), 0) AS live_records,
      (SELECT count(*) FROM ledger_entries e WHERE e.agent_id = a.id AND e.created_at >= ${since7}) AS syncs_7d,
      (SELECT count(DISTINCT v.record_id) FROM record_versions v WHERE v.agent_id = a.id AND v.synced_at >= ${since7})
        - (SELECT count(*) FROM record_versions m WHERE m.agent_id = a.id AND m.moved_from IS NOT NULL AND +m.synced_at >= ${since7} AND m.op = 'move'
            AND EXISTS (SELECT 1 FROM record_versions p WHERE p.agent_id = m.agent_id AND p.record_id = m.moved_from AND +p.synced_at >= ${since7}))
        AS changed_records_7d
    FROM agents a WHERE 1 = 1 ${tenantSql('a', params.tenantId)} ${onlyAgent(params.agentId)}
    ORDER BY a.created_at, a.id`);
  // Per-day op counts from the ledger entries' own counts, not from the record versions: the
  // indexer writes one version per op it counts (foldEntry), with the entry's time as synced_at, so
  // the sums are the same, read from one row per sync instead of one per changed record (the fleet
  // page of 100 agents × 200 syncs read ~45,000 version rows here; bench/ui-scale), from the
  // (agent_id, created_at, op counts) index alone. Live records come from the live-facet counters.
  const activity = db.db.all<DayActivity & { agent_id: string }>(sql`
    SELECT e.agent_id, substr(e.created_at, 1, 10) AS day,
      sum(e.creates) AS creates, sum(e.updates) AS updates, sum(e.deletes) AS deletes, sum(e.moves) AS moves
    FROM ledger_entries e JOIN agents a ON a.id = e.agent_id
    WHERE e.created_at >= ${firstDay} ${tenantSql('a', params.tenantId)} ${onlyAgent(params.agentId)}
    GROUP BY e.agent_id, day`);
  const byKey = new Map(activity.map((a) => [`${a.agent_id}|${a.day}`, a]));
  const days = Array.from({ length: 28 }, (_, i) => utcDay(now.getTime() - (27 - i) * DAY));
  return rows.map((row) => ({
    ...row,
    activity: days.map((day) => {
      const hit = byKey.get(`${row.id}|${day}`);
      return { day, creates: hit?.creates ?? 0, updates: hit?.updates ?? 0, deletes: hit?.deletes ?? 0, moves: hit?.moves ?? 0 };
    }),
  }));
}
