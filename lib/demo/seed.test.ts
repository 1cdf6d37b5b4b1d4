import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeDatabase } from '@/db/client';
import { registerDemoCommand } from '@/lib/cli/commands/demo';
import { getChanges, getRecordLineage, getRecordsAt, listAgentsWithStats, searchFirstAppearance } from '@/lib/history/queries';
import { listAgents, listEntries, openLedger, type Ledger } from '@/lib/ledger';
import { archivePathFor } from './atlas-content';
import { LAST_DAY_SYNC_HOUR, demoCalendar, parseDay } from './clock';
import { ATLAS_FILES, DEMO_AGENTS, DEMO_FACTS } from './facts';
import { seedDemo, type SeedDemoResult } from './seed';

const TODAY = '2026-05-10';
const calendar = demoCalendar(parseDay(TODAY));
const endOfToday = new Date(calendar.at(27, 23, 59));
const episodic = (day: number) => `memory/episodic/${calendar.date(day)}.md`;

// tmpfs when there is one: the ledger fsyncs every blob, which is all this test would measure on disk.
const scratchRoot = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();

let root: string;
let dataDir: string;
let result: SeedDemoResult;
let ledger: Ledger;

function ledgerFingerprint(l: Ledger): string[] {
  return listAgents({ ledger: l }).flatMap((agent) =>
    listEntries({ ledger: l, agentId: agent.id }).map((e) => `${agent.id} ${e.seq} ${e.kind} ${e.id} ${e.sha256} ${e.created_at}`),
  ).sort();
}

function agentId(name: string): string {
  const agent = listAgents({ ledger }).find((a) => a.name === name);
  if (!agent) throw new Error(`no agent named ${name}`);
  return agent.id;
}

const search = (q: string, agent?: string) =>
  searchFirstAppearance({ db: ledger.db, q, limit: 500, ...(agent ? { agentId: agentId(agent) } : {}) });

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(scratchRoot, 'lineage-demo-'));
  dataDir = path.join(root, 'data');
  result = await seedDemo({ dataDir, today: parseDay(TODAY) });
  ledger = openLedger(dataDir);
});

afterAll(() => {
  closeDatabase(openLedger(dataDir).db);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('lineage demo', () => {
  it('seeds four agents on three runtimes, with syncs in the last seven days', () => {
    expect(result).toMatchObject({ ok: true, seeded: true });
    if (!result.seeded) return;
    expect(result.agents.map((a) => [a.name, a.runtime])).toEqual([
      [DEMO_AGENTS.atlas, 'openclaw'], [DEMO_AGENTS.hermes, 'hermes'], [DEMO_AGENTS.ledgerBot, 'zeroclaw'], [DEMO_AGENTS.scout, 'zeroclaw'],
    ]);
    expect(result.agents.find((a) => a.name === DEMO_AGENTS.atlas)!.syncs).toBeGreaterThanOrEqual(36);
    expect(result.syncs).toBe(result.agents.reduce((n, a) => n + a.syncs, 0));

    const fleet = listAgentsWithStats({ db: ledger.db, now: endOfToday });
    expect(new Set(fleet.map((a) => a.runtime))).toEqual(new Set(['openclaw', 'zeroclaw', 'hermes']));
    expect(fleet.length).toBeGreaterThanOrEqual(4);
    for (const agent of fleet) {
      expect(agent.syncs_7d, agent.name).toBeGreaterThan(0);
      // The last day's syncs all happen early, so a default seeding never holds a sync from the future.
      expect(agent.last_sync_at! >= calendar.date(27) && agent.last_sync_at! < calendar.at(27, LAST_DAY_SYNC_HOUR, 0).toISOString()).toBe(true);
    }
    // Each day's activity is that day's record versions by op (the query reads the entries' counts).
    const versionsByDay = ledger.db.sqlite.prepare(`SELECT agent_id, substr(synced_at, 1, 10) AS day, sum(op = 'create') AS creates,
      sum(op = 'update') AS updates, sum(op = 'delete') AS deletes, sum(op = 'move') AS moves FROM record_versions
      WHERE synced_at >= ? GROUP BY agent_id, day ORDER BY agent_id, day`).all(fleet[0]!.activity[0]!.day) as { agent_id: string; day: string }[];
    const activityDays = fleet.flatMap((a) => a.activity.filter((d) => d.creates + d.updates + d.deletes + d.moves > 0).map((d) => ({ agent_id: a.id, ...d })))
      .sort((x, y) => x.agent_id.localeCompare(y.agent_id) || x.day.localeCompare(y.day));
    expect(activityDays).toEqual(versionsByDay);
    for (const op of ['creates', 'updates', 'deletes', 'moves'] as const) expect(activityDays.some((d) => d[op] > 0), op).toBe(true);
    const week = getChanges({ db: ledger.db, since: new Date(endOfToday.getTime() - 7 * 86_400_000) });
    expect(new Set(week.groups.map((g) => g.agent_name))).toEqual(new Set(Object.values(DEMO_AGENTS)));
  });

  it('answers "when did it first appear" for both gateway addresses, in the same evolving record', () => {
    const old = search(DEMO_FACTS.oldGatewayIp, DEMO_AGENTS.atlas);
    expect(old.first).toMatchObject({ sequence: 0, origin_file: ATLAS_FILES.infrastructure });
    const fresh = search(DEMO_FACTS.newGatewayIp, DEMO_AGENTS.atlas);
    expect(fresh.first).toMatchObject({ origin_file: ATLAS_FILES.infrastructure, record_id: old.first!.record_id });
    expect(fresh.first!.synced_at.slice(0, 10)).toBe(calendar.date(ATLAS_FILES.gatewaySwapDay));

    const lineage = getRecordLineage({ db: ledger.db, agentId: agentId(DEMO_AGENTS.atlas), recordId: old.first!.record_id })!;
    expect(lineage.record.heading).toBe('Gateway');
    expect(lineage.versions.length).toBeGreaterThanOrEqual(4);
    expect(lineage.versions.map((v) => v.op)).toEqual(['create', ...Array(lineage.versions.length - 1).fill('update')]);
    expect(lineage.versions.at(-1)!.content).toContain(DEMO_FACTS.newGatewayIp);
  });

  it('shows the queue decision and its reversal as two versions of one decisions.md record', () => {
    const decision = search(DEMO_FACTS.decision, DEMO_AGENTS.atlas);
    const reversal = search(DEMO_FACTS.reversal, DEMO_AGENTS.atlas);
    expect(decision.first).toMatchObject({ origin_file: ATLAS_FILES.decisions });
    expect(reversal.first).toMatchObject({ origin_file: ATLAS_FILES.decisions, record_id: decision.first!.record_id });
    expect(decision.first!.synced_at.slice(0, 10)).toBe(calendar.date(ATLAS_FILES.decisionDay));
    expect(reversal.first!.synced_at.slice(0, 10)).toBe(calendar.date(ATLAS_FILES.reversalDay));
    expect(reversal.first!.sequence).toBeGreaterThan(decision.first!.sequence);
  });

  it('finds the event token first in its episodic note and again after the TTL archiver moved it, linked by moved_from', () => {
    const day = ATLAS_FILES.eventTokenDay;
    const hits = search(DEMO_FACTS.eventToken, DEMO_AGENTS.atlas);
    expect(hits.first).toMatchObject({ origin_file: episodic(day) });
    const archived = hits.appearances.find((a) => a.origin_file === archivePathFor(episodic(day)));
    expect(archived).toBeDefined();
    expect(archived!.origin_file).toMatch(/^memory\/archive\/\d{4}\/\d{2}\//);

    const lineage = getRecordLineage({ db: ledger.db, agentId: agentId(DEMO_AGENTS.atlas), recordId: archived!.record_id })!;
    expect(lineage.record.status).toBe('archived');
    expect(lineage.moved_from).toMatchObject({ record_id: hits.first!.record_id, origin_file: episodic(day) });
    const original = getRecordLineage({ db: ledger.db, agentId: agentId(DEMO_AGENTS.atlas), recordId: hits.first!.record_id })!;
    // One memory: the original's id answers with the same chain, which lives on in the archive.
    expect(original.chain).toEqual(lineage.chain);
    expect(original.record).toMatchObject({ record_id: archived!.record_id, deleted_seq: null, born_file: episodic(day) });
    expect(original.versions.find((v) => v.op === 'move')).toMatchObject({ seq: archived!.sequence, from_file: episodic(day), to_record_id: archived!.record_id });
    expect(original.moved_to.map((l) => l.record_id)).toContain(archived!.record_id);
  });

  it('keeps the hostile markup as plain memory text, and drops the scratch note', () => {
    for (const markup of [DEMO_FACTS.xssScript, DEMO_FACTS.xssImage]) {
      const hit = search(markup, DEMO_AGENTS.atlas);
      expect(hit.first?.origin_file).toBe(episodic(ATLAS_FILES.xssDay));
    }
    const scratch = getChanges({ db: ledger.db, since: calendar.day(0), agentId: agentId(DEMO_AGENTS.atlas), op: 'delete' });
    expect(scratch.groups.flatMap((g) => g.changes).some((c) => c.origin_file === 'memory/scratch.md')).toBe(true);
  });

  it('keeps the ZeroClaw agents apart and tracks in-place row edits', () => {
    const limit = search(DEMO_FACTS.scoutRateLimit, DEMO_AGENTS.scout);
    expect(limit.first).toMatchObject({ sequence: 0, origin_file: null });
    const rows = getRecordLineage({ db: ledger.db, agentId: agentId(DEMO_AGENTS.scout), recordId: limit.first!.record_id })!;
    expect(rows.versions.map((v) => v.op)).toEqual(['create', 'update', 'update']);
    // A row has no heading: the memories and the changes it appears in are named by its key.
    const key = (rows.versions.at(-1)!.record.raw_source_format as { key: string }).key;
    expect(key.length).toBeGreaterThan(0);
    const scout = agentId(DEMO_AGENTS.scout);
    const live = getRecordsAt({ db: ledger.db, agentId: scout, limit: 1000 })!.items;
    expect(live.find((r) => r.record_id === limit.first!.record_id)).toMatchObject({ heading: null, key });
    expect(live.every((r) => r.heading === null && typeof r.key === 'string' && r.key.length > 0)).toBe(true);
    const changed = getChanges({ db: ledger.db, since: calendar.day(0), agentId: scout }).groups.flatMap((g) => g.changes);
    expect(changed.filter((c) => c.record_id === limit.first!.record_id).map((c) => c.key)).toEqual([key, key, key]);
    const atlas = getRecordsAt({ db: ledger.db, agentId: agentId(DEMO_AGENTS.atlas), limit: 1000 })!.items;
    expect(atlas.filter((r) => r.heading !== null).every((r) => r.key === null)).toBe(true);
    expect(search('acme-data invoices', DEMO_AGENTS.scout).total).toBe(0);
    expect(search('acme-data invoices', DEMO_AGENTS.ledgerBot).total).toBeGreaterThan(0);
  });

  it('shows the open Hermes session growing across syncs and the edited curated note', () => {
    const planning = search('Quarterly planning', DEMO_AGENTS.hermes);
    const lineage = getRecordLineage({ db: ledger.db, agentId: agentId(DEMO_AGENTS.hermes), recordId: planning.first!.record_id })!;
    expect(lineage.versions.map((v) => v.op)).toEqual(['create', 'update', 'update', 'update']);
    expect(lineage.record.deleted_seq).toBeNull();
    expect(search(DEMO_FACTS.hermesStandup, DEMO_AGENTS.hermes).first?.origin_file).toBe('memories/MEMORY.md');
  });

  it('leaves a data directory that already has agents alone', async () => {
    await expect(seedDemo({ dataDir, today: parseDay(TODAY) })).resolves.toEqual({
      ok: true, seeded: false, reason: 'data directory already has agents',
    });
    const program = new Command().exitOverride();
    registerDemoCommand(program);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await program.parseAsync(['demo', '--data', dataDir, '--today', TODAY], { from: 'user' });
      expect(JSON.parse(String(out.mock.calls[0]![0]))).toMatchObject({ ok: true, seeded: false });
      await expect(program.parseAsync(['demo', '--data', dataDir, '--today', '2026-02-30'], { from: 'user' })).rejects.toMatchObject({ code: 'invalid_argument' });
    } finally {
      out.mockRestore();
    }
  });

  it('is deterministic: the same --today gives the same ledger, entry for entry and byte for byte', async () => {
    const first = ledgerFingerprint(ledger);
    closeDatabase(ledger.db);
    fs.rmSync(dataDir, { recursive: true, force: true });
    const again = await seedDemo({ dataDir, today: parseDay(TODAY) });
    ledger = openLedger(dataDir);
    expect(again).toEqual(result);
    expect(ledgerFingerprint(ledger)).toEqual(first);
  }, 120_000);
});
