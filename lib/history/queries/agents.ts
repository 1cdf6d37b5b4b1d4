import { sql } from 'drizzle-orm';
import type { LineageDb } from '@/db/client';
import { tenantSql, type TenantScope } from './common';
import { pendingAgents } from '../pending-index';
import { allRows } from './prepared';

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
  /**
   * Entries of its ledger are not in its history index after this read's fold (it failed, or a
   * background catch-up is at it): its pages show less than its ledger holds, and its `index_notice`
   * (GET /api/agents/{id}) says why. Always false for the scale-out storage (it folds as it ingests).
   */
  index_behind: boolean;
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
  const rows = allRows<Omit<AgentWithStats, 'activity' | 'index_behind'>>(db.db, sql`
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
  // rows per agent instead of every entry of 28 days (~21,000 for the ui-scale fleet of 100 agents). One row per
  // agent, its days joined into one string: the driver's making of ~2,500 row objects cost 2.5 ms of a 3 ms read
  // (the SQL itself is 0.1 ms), one string an agent 0.7 ms.
  const activity = allRows<{ agent_id: string; days: string }>(db.db, sql`
    SELECT d.agent_id, group_concat(d.day || ' ' || d.creates || ' ' || d.updates || ' ' || d.deletes || ' ' || d.moves, ' ') AS days
    FROM agents a CROSS JOIN agent_day_activity d ON d.agent_id = a.id AND d.day >= ${firstDay}
    WHERE 1 = 1 ${tenantSql('a', params.tenantId)} ${onlyAgent(params.agentId)}
    GROUP BY d.agent_id`);
  const days = Array.from({ length: 28 }, (_, i) => utcDay(now.getTime() - (27 - i) * DAY));
  const dayIndex = new Map(days.map((day, i) => [day, i]));
  const byAgent = new Map(activity.map((a) => [a.agent_id, a.days]));
  const behind = pendingAgents(db.sqlite);
  return rows.map((row) => ({ ...row, activity: activityOf(days, dayIndex, byAgent.get(row.id)), index_behind: behind.has(row.id) }));
}

/** The 28 days of one agent, zeros included, from its `day creates updates deletes moves …` string (days outside the window left out). */
function activityOf(days: string[], dayIndex: Map<string, number>, joined: string | undefined): DayActivity[] {
  const out = days.map((day) => ({ day, creates: 0, updates: 0, deletes: 0, moves: 0 }));
  if (joined === undefined) return out;
  const parts = joined.split(' ');
  for (let i = 0; i + 4 < parts.length; i += 5) {
    const at = dayIndex.get(parts[i]!);
    if (at === undefined) continue;
    const day = out[at]!;
    day.creates = Number(parts[i + 1]);
    day.updates = Number(parts[i + 2]);
    day.deletes = Number(parts[i + 3]);
    day.moves = Number(parts[i + 4]);
  }
  return out;
}
