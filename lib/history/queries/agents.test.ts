/**
 * The fleet stats read from what is kept (records_agent_changed_idx, the agent_day_activity counts of the
 * ledger_entries triggers, migration 0014) answer what their definitions count over every version and every
 * entry, over random histories with creates, edits, deletes, moves between files and rollover snapshots, at
 * every window; after a rebuild (which rewrites every entry's counts) and after the migration's backfill.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '@/lib/ledger';
import { packageRoot } from '@/lib/package-root';
import { rebuildIndex } from '../rebuild';
import { HistoryGenerator } from '../testing/generator';
import { tempLedger } from '../testing/temp-ledger';
import { listAgentsWithStats, type DayActivity } from './agents';

const DAY = 86_400_000;
const AGENTS = ['0b1c0000-0000-4000-8000-000000000001', '0b1c0000-0000-4000-8000-000000000002', '0b1c0000-0000-4000-8000-000000000003'];
const START = Date.parse('2026-03-02T08:00:00Z');

/** The definition: distinct records with a version in the window, less the window's moves whose source has one too. */
function changedRecordsOf(ledger: Ledger, agentId: string, since: string): number {
  return ledger.db.sqlite.prepare(`SELECT
    (SELECT count(DISTINCT record_id) FROM record_versions WHERE agent_id = @a AND synced_at >= @since)
    - (SELECT count(*) FROM record_versions m WHERE m.agent_id = @a AND m.op = 'move' AND m.moved_from IS NOT NULL AND m.synced_at >= @since
        AND EXISTS (SELECT 1 FROM record_versions p WHERE p.agent_id = m.agent_id AND p.record_id = m.moved_from AND p.synced_at >= @since))`)
    .pluck().get({ a: agentId, since }) as number;
}

/** The definition: the entries' op counts summed per UTC day of their time. */
function activityOf(ledger: Ledger, agentId: string, firstDay: string): Map<string, Omit<DayActivity, 'day'>> {
  const rows = ledger.db.sqlite.prepare(`SELECT substr(created_at, 1, 10) AS day, sum(creates) AS creates, sum(updates) AS updates,
    sum(deletes) AS deletes, sum(moves) AS moves FROM ledger_entries WHERE agent_id = ? AND created_at >= ? GROUP BY day`)
    .all(agentId, firstDay) as DayActivity[];
  return new Map(rows.map(({ day, ...counts }) => [day, counts]));
}

const keptActivity = (ledger: Ledger) => ledger.db.sqlite.prepare(
  'SELECT agent_id, day, creates, updates, deletes, moves FROM agent_day_activity WHERE creates + updates + deletes + moves > 0 ORDER BY 1, 2').all();
const entrySums = (ledger: Ledger) => ledger.db.sqlite.prepare(`SELECT agent_id, substr(created_at, 1, 10) AS day, sum(creates) AS creates,
  sum(updates) AS updates, sum(deletes) AS deletes, sum(moves) AS moves FROM ledger_entries GROUP BY 1, 2
  HAVING sum(creates) + sum(updates) + sum(deletes) + sum(moves) > 0 ORDER BY 1, 2`).all();

function expectStatsMatchDefinitions(ledger: Ledger): number {
  let windows = 0;
  // Every 29 hours across the history and past its end, so windows start at every hour of the day.
  for (let now = START; now <= START + 45 * DAY; now += 29 * 3_600_000) {
    const at = new Date(now);
    const since = new Date(now - 7 * DAY).toISOString();
    const firstDay = new Date(now - 27 * DAY).toISOString().slice(0, 10);
    for (const agent of listAgentsWithStats({ db: ledger.db, now: at })) {
      expect(agent.changed_records_7d, `${agent.id} at ${at.toISOString()}`).toBe(changedRecordsOf(ledger, agent.id, since));
      const want = activityOf(ledger, agent.id, firstDay);
      for (const { day, ...counts } of agent.activity) {
        expect(counts, `${agent.id} on ${day}`).toEqual(want.get(day) ?? { creates: 0, updates: 0, deletes: 0, moves: 0 });
      }
      windows++;
    }
  }
  return windows;
}

describe('fleet stats from kept counts', () => {
  let ledger: Ledger;
  let cleanup: () => void;

  beforeAll(async () => {
    ({ ledger, cleanup } = tempLedger());
    for (const [i, agentId] of AGENTS.entries()) {
      const gen = new HistoryGenerator(ledger, agentId, 40 + i, START + i * 5 * 3_600_000);
      gen.register();
      // 150 turns six hours apart: 37 days, rollover snapshots now and then.
      for (let turn = 0; turn < 150; turn++) {
        gen.randomMutations();
        await gen.sync(turn, { rollover: turn > 0 && turn % 37 === 0 });
      }
    }
  }, 120_000);
  afterAll(() => cleanup());

  it('the week\'s changed memories and the 28-day activity equal their definitions at every window', () => {
    const moves = ledger.db.sqlite.prepare("SELECT count(*) FROM record_versions WHERE op = 'move'").pluck().get() as number;
    expect(moves).toBeGreaterThan(10);
    expect(expectStatsMatchDefinitions(ledger)).toBeGreaterThan(100);
    expect(keptActivity(ledger)).toEqual(entrySums(ledger));
  });

  it('entries whose counts change (damage, then the rebuild that rewrites every entry\'s counts) keep the activity equal to their sums', async () => {
    const healthy = keptActivity(ledger);
    ledger.db.sqlite.exec("UPDATE ledger_entries SET creates = creates + 7, moves = moves + 1 WHERE seq % 5 = 1");
    expect(keptActivity(ledger)).toEqual(entrySums(ledger));
    expect(keptActivity(ledger)).not.toEqual(healthy);
    await rebuildIndex({ ledger });
    expect(keptActivity(ledger)).toEqual(healthy);
    expect(keptActivity(ledger)).toEqual(entrySums(ledger));
    expectStatsMatchDefinitions(ledger);
  });

  it('the migration fills the activity of a data directory synced before it from its entries', () => {
    const migration = fs.readFileSync(path.join(packageRoot(), 'db', 'migrations', '0014_agent_activity.sql'), 'utf8');
    const backfill = migration.split('--> statement-breakpoint').find((s) => s.includes('INSERT INTO `agent_day_activity`') && s.includes('FROM `ledger_entries`'));
    ledger.db.sqlite.exec('DELETE FROM agent_day_activity');
    ledger.db.sqlite.exec(backfill!);
    expect(keptActivity(ledger)).toEqual(entrySums(ledger));
  });

  it('an agent removed takes its activity with it', () => {
    const before = ledger.db.sqlite.prepare('SELECT count(*) FROM agent_day_activity WHERE agent_id = ?').pluck().get(AGENTS[2]) as number;
    expect(before).toBeGreaterThan(0);
    ledger.db.sqlite.prepare('DELETE FROM agents WHERE id = ?').run(AGENTS[2]);
    expect(ledger.db.sqlite.prepare('SELECT count(*) FROM agent_day_activity WHERE agent_id = ?').pluck().get(AGENTS[2])).toBe(0);
    expect(keptActivity(ledger)).toEqual(entrySums(ledger));
  });
});
