/**
 * Moves through the real pipeline (OpenClaw v4.1 workspace → sync → ledger → index): archiving,
 * promoting, identical sections, moved-and-edited, and rebuild == incremental with moves.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { getChanges, getRecordLineage, getRecordsAt, getSequence, getSequences, listAgentsWithStats } from './queries';
import { rebuildIndex } from './rebuild';
import { dumpIndex } from './testing/temp-ledger';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const EPISODIC = 'memory/episodic/2026-10-01.md';
const ARCHIVE = 'memory/archive/2026/10/2026-10-01.md';
const BASE: Record<string, string> = {
  'MEMORY.md': '# MEMORY\n\n## Now\nMigrating the queue to Redis Streams.\n',
  'memory/semantic/infrastructure.md': '# Infrastructure\n\n## Gateway\nLAN gateway: 10.20.0.5.\n',
};

async function agentLife(files: Record<string, string>) {
  const sb = await makeSandbox('lineage-moves-');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  let ledger: Ledger | null = null;
  cleanups.push(async () => {
    if (ledger) closeDatabase(ledger.db);
    await sb.cleanup();
  });
  for (const [rel, text] of Object.entries(files)) await sb.write(rel, text);
  const sync = async () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  const first = await sync();
  const agentId = first.agent.alf_agent_id;
  ledger = openLedger(sb.dataDir);
  const db = ledger.db;
  const rename = async (from: string, to: string, edit?: (text: string) => string) => {
    const text = await fs.readFile(path.join(sb.workspace, from), 'utf8');
    await sb.remove(from);
    await sb.write(to, edit ? edit(text) : text);
  };
  const changes = (seq: number, op?: 'create' | 'update' | 'delete' | 'move') =>
    getChanges({ db, since: new Date(0), agentId, op }).groups.flatMap((g) => g.changes).filter((c) => c.seq === seq);
  const liveIds = (at: number) => getRecordsAt({ db, agentId, at, limit: 1000 })!.items.map((r) => r.record_id);
  return { sb, sync, agentId, ledger, db, rename, changes, liveIds, now: clock };
}

async function expectRebuildEqualsIncremental(ledger: Ledger): Promise<void> {
  const before = dumpIndex(ledger);
  await rebuildIndex({ ledger });
  expect(dumpIndex(ledger)).toEqual(before);
}

const lineStart = (record: Record<string, unknown>) => (record.raw_source_format as { line_start: number }).line_start;

describe('moves', () => {
  it('an episodic file archived unchanged is exactly one move: no delete, no create, one chain from either id', async () => {
    const life = await agentLife({ ...BASE, [EPISODIC]: '# 2026-10-01\n\n## Webhook replay\nReplayed evt-00012-a1b2c3 after the outage.\n' });
    const before = life.liveIds(0);
    await life.rename(EPISODIC, ARCHIVE);
    const out = await life.sync();
    expect(out.sequence).toBe(1);

    expect(life.changes(1, 'delete')).toEqual([]);
    expect(life.changes(1, 'create')).toEqual([]);
    const moves = life.changes(1, 'move');
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ op: 'move', origin_file: ARCHIVE, from_file: EPISODIC });
    expect(life.changes(1)).toEqual(moves);
    const from = moves[0]!.from_record_id!;
    const to = moves[0]!.record_id;

    const timeline = getSequences({ db: life.db, agentId: life.agentId })!.items.find((s) => s.seq === 1)!;
    expect(timeline).toMatchObject({ creates: 0, deletes: 0, updates: 0, moves: 1 });
    const detail = getSequence({ db: life.db, agentId: life.agentId, seq: 1 })!;
    expect(detail.ops.map((o) => [o.op, o.record_id, o.from_file, o.origin_file])).toEqual([['move', to, EPISODIC, ARCHIVE]]);
    expect(detail.raw.filter((r) => r.record_ids.includes(to)).map((r) => r.path).sort()).toEqual([ARCHIVE, EPISODIC]);

    const byNew = getRecordLineage({ db: life.db, agentId: life.agentId, recordId: to })!;
    const byOld = getRecordLineage({ db: life.db, agentId: life.agentId, recordId: from })!;
    expect(byNew.chain).toEqual([from, to]);
    expect(byOld.chain).toEqual(byNew.chain);
    expect(byOld.versions).toEqual(byNew.versions);
    expect(byOld.record).toEqual(byNew.record);
    expect(byNew.versions.map((v) => v.op)).toEqual(['create', 'move']);
    expect(byNew.versions[1]).toMatchObject({ op: 'move', seq: 1, synced_at: detail.synced_at, from_file: EPISODIC, to_file: ARCHIVE, from_record_id: from, to_record_id: to });
    expect(byNew.record).toMatchObject({ record_id: to, origin_file: ARCHIVE, born_file: EPISODIC, born_seq: 0, deleted_seq: null });

    expect(life.liveIds(0)).toEqual(before);
    expect(life.liveIds(1)).toContain(to);
    expect(life.liveIds(1)).not.toContain(from);
    const [agent] = listAgentsWithStats({ db: life.db, now: life.now() });
    expect(agent!.changed_records_7d).toBe(before.length);
    expect(agent!.activity.reduce((n, d) => n + d.moves, 0)).toBe(1);
    expect(agent!.activity.reduce((n, d) => n + d.deletes, 0)).toBe(0);
    await expectRebuildEqualsIncremental(life.ledger);
  });

  it('two moves in a row make one chain of three ids, whichever id is asked', async () => {
    const life = await agentLife({ ...BASE, [EPISODIC]: '## Webhook replay\nReplayed evt-00012-a1b2c3 after the outage.\n' });
    await life.rename(EPISODIC, ARCHIVE);
    await life.sync();
    await life.rename(ARCHIVE, 'memory/semantic/incidents.md');
    await life.sync();
    const last = life.changes(2, 'move');
    expect(last).toHaveLength(1);
    const lineage = getRecordLineage({ db: life.db, agentId: life.agentId, recordId: last[0]!.record_id })!;
    expect(lineage.chain).toHaveLength(3);
    expect(lineage.versions.map((v) => [v.op, v.seq, v.origin_file])).toEqual([
      ['create', 0, EPISODIC], ['move', 1, ARCHIVE], ['move', 2, 'memory/semantic/incidents.md'],
    ]);
    expect(lineage.versions.filter((v) => v.op === 'move').map((v) => [v.from_record_id, v.to_record_id])).toEqual([
      [lineage.chain[0], lineage.chain[1]], [lineage.chain[1], lineage.chain[2]],
    ]);
    for (const id of lineage.chain) {
      const other = getRecordLineage({ db: life.db, agentId: life.agentId, recordId: id })!;
      expect([other.chain, other.versions]).toEqual([lineage.chain, lineage.versions]);
    }
    expect(lineage.record).toMatchObject({ born_file: EPISODIC, origin_file: 'memory/semantic/incidents.md' });
    await expectRebuildEqualsIncremental(life.ledger);
  });

  it('three identical sections moved together pair in (file, position) order', async () => {
    const same = '## Check\nAll quiet overnight.\n';
    const life = await agentLife({ ...BASE, [EPISODIC]: `# 2026-10-01\n\n${same}\n${same}\n${same}` });
    // The archive puts a section of its own first: every moved section sits 3 lines lower.
    await life.rename(EPISODIC, ARCHIVE, (text) => `## Archived\nFrom the TTL rule.\n\n${text.replace('# 2026-10-01\n\n', '')}`);
    await life.sync();
    const moves = life.changes(1, 'move');
    expect(moves).toHaveLength(3);
    expect(life.changes(1, 'delete')).toEqual([]);
    const pairs = moves.map((m) => {
      const lineage = getRecordLineage({ db: life.db, agentId: life.agentId, recordId: m.record_id })!;
      return [lineStart(lineage.versions[0]!.record), lineStart(lineage.versions[1]!.record)];
    }).sort((a, b) => a[0]! - b[0]!);
    expect(pairs).toEqual([[3, 4], [6, 7], [9, 10]]);
    await expectRebuildEqualsIncremental(life.ledger);
  });

  it('a section moved with its line endings and trailing spaces changed is still a move', async () => {
    const life = await agentLife({ ...BASE, [EPISODIC]: '## Webhook replay\nReplayed evt-00012-a1b2c3 after the outage.\n' });
    await life.rename(EPISODIC, ARCHIVE, (text) => text.replace(/\n/g, '  \r\n'));
    await life.sync();
    expect(life.changes(1, 'move')).toHaveLength(1);
    expect(life.changes(1, 'delete')).toEqual([]);
  });

  it('a section moved and edited in one sync is a create plus a delete, not a move', async () => {
    const life = await agentLife({ ...BASE, [EPISODIC]: '## Webhook replay\nReplayed evt-00012-a1b2c3 after the outage.\n' });
    await life.rename(EPISODIC, ARCHIVE, (text) => text.replace('after the outage', 'after the second outage'));
    await life.sync();
    expect(life.changes(1, 'move')).toEqual([]);
    expect(life.changes(1).map((c) => [c.op, c.origin_file]).sort()).toEqual([['create', ARCHIVE], ['delete', EPISODIC]]);
    expect(getSequences({ db: life.db, agentId: life.agentId })!.items[0]).toMatchObject({ seq: 1, creates: 1, deletes: 1, moves: 0 });
    const created = life.changes(1, 'create')[0]!;
    expect(getRecordLineage({ db: life.db, agentId: life.agentId, recordId: created.record_id })!.chain).toEqual([created.record_id]);
    await expectRebuildEqualsIncremental(life.ledger);
  });
});
