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
 * memories: a record and the record it moved to in the window are one. Counted from what is kept, not from the
 * week's versions: the records whose last op (`records.last_changed_at`, a move away included) falls in the window,
 * on `records_agent_changed_idx`, less the window's moves (on the partial moves index). That is the distinct records
 * with a version in the window less the moves whose source also has one (changedRecordsOf in agents.test.ts, the
 * definition, is checked against it): a move's source always gets its last op at the move, so the window's sources
 * are counted among the records; a source with no version in the window is moved away at most once in it (it would
 * need a version to come back first), so the moves from outside the versioned records are as many as their sources.
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
      (SELECT count(*) FROM records r WHERE r.agent_id = a.id AND r.last_changed_at >= ${since7})
        - (SELECT count(*) FROM record_versions m WHERE m.agent_id = a.id AND m.moved_from IS NOT NULL AND +m.synced_at >= ${since7} AND m.op = 'move')
        AS changed_records_7d
    FROM agents a WHERE 1 = 1 ${tenantSql('a', params.tenantId)} ${onlyAgent(params.agentId)}
    ORDER BY a.created_at, a.id`);
  // Per-day op counts kept by the ledger_entries triggers (agent_day_activity, migration 0014): the sums of the
  // entries' own counts, which are the indexer's (foldEntry writes one version per op it counts), read from ≤ 28
  // rows per agent instead of every entry of 28 days (~21,000 for the ui-scale fleet of 100 agents).
  const activity = db.db.all<DayActivity & { agent_id: string }>(sql`
    SELECT d.agent_id, d.day, d.creates, d.updates, d.deletes, d.moves
    FROM agents a CROSS JOIN agent_day_activity d ON d.agent_id = a.id AND d.day >= ${firstDay}
    WHERE 1 = 1 ${tenantSql('a', params.tenantId)} ${onlyAgent(params.agentId)}`);
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
