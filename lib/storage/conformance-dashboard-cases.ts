/**
 * Conformance cases of the dashboard's last three reads (issue 21 §1): the comparison of two
 * sequences, a file's blame and a database's rows — same answers on both backends, and the right
 * ones. Histories synced through the real client pipeline (testing/synced-histories.ts: the
 * hand-built compare and blame histories, a ZeroClaw and a Hermes agent) are ingested into both
 * at their sync times; the scenario agents of conformance-cases.ts (moves, record-only deltas,
 * rollovers, a binary file) are asked too. They run after the other cases, on the agents ingested.
 */
import { beforeAll, expect, it } from 'vitest';
import type { BlameSectionBlock, FileBlame } from '@/lib/history/queries/blame';
import type { WorkspaceComparison } from '@/lib/history/queries/compare';
import { CHANGES_1_TO_3, COMPARE_FACTS as F, compareNames } from '@/lib/history/testing/compare-history';
import { ARCHIVED, blameSummary, DAILY } from '@/lib/history/testing/blame-history';
import type { LineageStorage } from './types';
import type { IndexDump } from './testing/dumps';
import { A1, A2, asking, EMPTY, TENANT, withoutRace, type Backends } from './conformance-cases';
import { blameUploads, compareUploads, hermesUploads, LONG_CONTENT, zeroclawUploads, type SyncedHistory } from './testing/synced-histories';

const UNKNOWN = '7c7c7c7c-1111-4a2b-8c3d-0000000000ff';

const names = compareNames;
const summary = (b: FileBlame) => blameSummary(b.blocks);

export function runDashboardReadCases(b: Backends): void {
  const { each, same, value } = asking(b);
  const h = {} as Record<'compare' | 'blame' | 'zeroclaw' | 'hermes', SyncedHistory>;
  const latest = async (agentId: string) => (await b.embedded.storage.getAgent({ agentId }))!.latest_sequence!;

  /** Registers the history's agent and ingests its uploads on both backends, each with the same answer. */
  const ingest = async (history: SyncedHistory, tenantId: string | null) => {
    const now = history.uploads[0]!.now;
    await same((s) => s.registerAgent({ id: history.agentId, name: history.name, sourceRuntime: history.runtime, tenantId, now }));
    for (const u of history.uploads) {
      value(await same((s) => (u.kind === 'snapshot'
        ? s.ingestSnapshot({ agentId: u.agentId, bytes: u.bytes, now: u.now })
        : s.ingestDelta({ agentId: u.agentId, baseSequence: u.baseSequence, bytes: u.bytes, now: u.now }))));
    }
  };

  beforeAll(async () => {
    [h.compare, h.blame, h.zeroclaw, h.hermes] = [await compareUploads(), await blameUploads(), await zeroclawUploads(), await hermesUploads()];
  }, 240_000);

  it('the synced histories (compare, blame, ZeroClaw, Hermes) ingest the same on both backends', async () => {
    await ingest(h.compare, null);
    await ingest(h.blame, null);
    await ingest(h.zeroclaw, null);
    await ingest(h.hermes, TENANT);
    expect([await latest(h.compare.agentId), await latest(h.blame.agentId), await latest(h.zeroclaw.agentId), await latest(h.hermes.agentId)]).toEqual([4, 4, 2, 2]);
    // Index tables equal but for the race agent's rows and raw objects (its winners may differ).
    const indexed = (d: IndexDump) => ({ ...withoutRace(d), raw_objects: [] });
    expect(indexed(await b.scaleOut.dump())).toEqual(indexed(await b.embedded.dump()));
  });

  /** Every pair from ≤ to of the agent's sequences compared on both backends (each answer equal); the answers. */
  const everyPair = async (agentId: string, tenantId?: string | null) => {
    const top = await latest(agentId);
    const answers: WorkspaceComparison[] = [];
    for (let from = 0; from <= top; from++) {
      for (let to = from; to <= top; to++) answers.push(value(await same((s) => s.compareWorkspace({ agentId, from, to, tenantId })))!);
    }
    return answers;
  };

  it('compare: the hand-built history — a create, updates, a delete, two moves, files added, changed and removed from #1 to #3 — and every pair, equal', async () => {
    const agentId = h.compare.agentId;
    const c = value(await same((s) => s.compareWorkspace({ agentId, from: 1, to: 3 })))!;
    expect(names(c)).toEqual(CHANGES_1_TO_3);
    const edit = c.memories.updated.find((u) => u.after.heading === 'Edit')!;
    expect([edit.before.content, edit.after.content]).toEqual([expect.stringContaining(F.edit[1]), expect.stringContaining(F.edit[2])]);
    expect(names(value(await same((s) => s.compareWorkspace({ agentId, from: 2, to: 3 })))!).updated).toEqual(['Edit', 'Standup', 'Gateway']);
    const answers = await everyPair(agentId);
    expect(answers.filter((a) => a.from === a.to).every((a) => Object.values(a.counts).every((n) => n === 0))).toBe(true);
    const cut = value(await same((s) => s.compareWorkspace({ agentId, from: 1, to: 3, limit: 1 })))!;
    expect([cut.memories.moved.length, cut.files.removed.length, cut.counts.removed, cut.truncated]).toEqual([1, 1, 3, true]);
  });

  it('compare: refusals and absences the same — from > to (400), past the latest (404), never synced, unknown agent, other tenant', async () => {
    const agentId = h.compare.agentId;
    expect(await same((s) => s.compareWorkspace({ agentId, from: 3, to: 1 })))
      .toMatchObject({ error: { code: 'invalid_input', message: expect.stringMatching(/comes after the second/) } });
    expect(await same((s) => s.compareWorkspace({ agentId, from: 1, to: 5 })))
      .toMatchObject({ error: { code: 'sequence_out_of_range', message: expect.stringMatching(/^Sequence #5 does not exist: .* 0 to 4\.$/) } });
    expect(await same((s) => s.compareWorkspace({ agentId, from: -1, to: 2 }))).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await same((s) => s.compareWorkspace({ agentId: EMPTY, from: 0, to: 0 }))).toMatchObject({ error: { code: 'never_synced' } });
    for (const ask of [{ agentId: UNKNOWN }, { agentId, tenantId: TENANT }, { agentId: 'a\u0000b' }]) {
      expect(value(await same((s) => s.compareWorkspace({ ...ask, from: 0, to: 1 })))).toBeNull();
    }
    expect(value(await same((s) => s.compareWorkspace({ agentId: agentId.toUpperCase(), from: 0, to: 4 })))).not.toBeNull();
  });

  it('compare: the scenario agents (moves, record-only deltas, rollovers, a binary file) and the synced ZeroClaw and Hermes agents, every pair', async () => {
    let moved = 0;
    for (const [agentId, tenantId] of [[A1, null], [A2, TENANT], [h.zeroclaw.agentId, undefined], [h.hermes.agentId, TENANT]] as const) {
      moved += (await everyPair(agentId, tenantId)).reduce((n, a) => n + a.counts.moved, 0);
    }
    expect(moved).toBeGreaterThan(0);
    expect(value(await same((s) => s.compareWorkspace({ agentId: A2, from: 0, to: 1, tenantId: null })))).toBeNull();
  });

  /** The blame of every file of the tree at every sequence, on both backends (each equal); the blames. */
  const everyFile = async (agentId: string, tenantId?: string | null) => {
    const blames: FileBlame[] = [];
    for (let seq = 0; seq <= await latest(agentId); seq++) {
      const tree = value(await same((s) => s.getWorkspaceTree({ agentId, seq, tenantId })))!;
      for (const file of tree.files) blames.push(value(await same((s) => s.getFileBlame({ agentId, seq, path: file.path, tenantId })))!);
    }
    return blames;
  };

  it('blame: after an edit and a move — born and changed through the move, the moved section\'s move, the file\'s own lines — at every sequence, equal', async () => {
    const agentId = h.blame.agentId;
    const atMove = value(await same((s) => s.getFileBlame({ agentId, seq: 3, path: ARCHIVED })))!;
    expect(summary(atMove)).toEqual([
      { lines: [1, 2], file: 3 },
      { lines: [3, 5], heading: 'Standup', born: 0, changed: 0, moved: 3 },
      { lines: [6, 7], heading: 'Afternoon', born: 0, changed: 0, moved: 3 },
    ]);
    const standup = atMove.blocks.find((x): x is BlameSectionBlock => x.kind === 'section' && x.heading === 'Standup')!;
    expect(standup.moved).toMatchObject({ seq: 3, from_file: DAILY, to_file: ARCHIVED });
    expect(standup.born).toMatchObject({ seq: 0, file: DAILY });
    expect(standup.born.record_id).not.toBe(standup.record_id);
    expect(summary(value(await same((s) => s.getFileBlame({ agentId, seq: 4, path: ARCHIVED })))!)).toEqual([
      { lines: [1, 2], file: 4 },
      { lines: [3, 5], heading: 'Standup', born: 0, changed: 0, moved: 3 },
      { lines: [6, 7], heading: 'Afternoon', born: 0, changed: 4, moved: 3 },
    ]);
    expect(summary(value(await same((s) => s.getFileBlame({ agentId, seq: 4, path: 'MEMORY.md' })))!)).toEqual([
      { lines: [1, 2], file: 2 },
      { lines: [3, 5], heading: 'Now', born: 0, changed: 2, moved: null },
      { lines: [6, 8], heading: 'Added', born: 1, changed: 1, moved: null },
      { lines: [9, 10], heading: 'Later', born: 0, changed: 0, moved: null },
    ]);
    expect((await everyFile(agentId)).length).toBeGreaterThan(8);
  });

  it('blame: the scenario agents — binary and reconstructed files, moved sections — and the synced ZeroClaw and Hermes files, equal', async () => {
    const blames = [...await everyFile(A1), ...await everyFile(A2, TENANT), ...await everyFile(h.zeroclaw.agentId), ...await everyFile(h.hermes.agentId)];
    expect(blames.filter((x) => x.binary).length).toBeGreaterThan(0);
    expect(blames.filter((x) => x.reconstructed).length).toBeGreaterThan(0);
    const sections = blames.flatMap((x) => x.blocks.filter((y): y is BlameSectionBlock => y.kind === 'section'));
    expect(sections.filter((x) => x.moved !== null).length).toBeGreaterThan(0);
    expect(sections.filter((x) => x.born.seq < x.changed.seq).length).toBeGreaterThan(0);
  });

  it('blame: what is not there and what is refused, the same', async () => {
    const agentId = h.blame.agentId;
    for (const ask of [{ seq: 2, path: ARCHIVED }, { seq: 4, path: DAILY }, { seq: 0, path: 'MEMORY.md\u0000' }, { seq: 0, path: '../../etc/passwd' }]) {
      expect(value(await same((s) => s.getFileBlame({ agentId, ...ask })))).toBeNull();
    }
    expect(value(await same((s) => s.getFileBlame({ agentId: UNKNOWN, seq: 0, path: 'MEMORY.md' })))).toBeNull();
    expect(value(await same((s) => s.getFileBlame({ agentId, seq: 0, path: 'MEMORY.md', tenantId: TENANT })))).toBeNull();
    expect(await same((s) => s.getFileBlame({ agentId, seq: 5, path: 'MEMORY.md' }))).toMatchObject({ error: { code: 'sequence_out_of_range' } });
    expect(await same((s) => s.getFileBlame({ agentId: EMPTY, seq: 0, path: 'MEMORY.md' }))).toMatchObject({ error: { code: 'never_synced' } });
  });

  /** Every page of the database rows at `seq`, `limit` at a time, on both backends (each page equal); the pages. */
  const walk = async (s: { agentId: string; seq: number; limit: number; tenantId?: string | null }) => {
    const pages = [];
    let cursor: string | undefined;
    do {
      const page = value(await same((st: LineageStorage) => st.getDatabaseRecords({ ...s, ...(cursor ? { cursor } : {}) })))!;
      pages.push(page);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && pages.length < 100);
    return pages;
  };

  it('database records: a ZeroClaw agent at every sequence, page by page — keys, categories, the last change, content cut at 400 characters', async () => {
    const agentId = h.zeroclaw.agentId;
    const expected = [['backup', 'deploys', 'dns', 'editor', 'gateway', 'lunch', 'pager'], ['backup', 'deploys', 'dns', 'gateway', 'lunch', 'pager', 'runbook'],
      ['backup', 'deploys', 'dns', 'gateway', 'pager', 'runbook']];
    for (let seq = 0; seq <= 2; seq++) {
      const whole = value(await same((s) => s.getDatabaseRecords({ agentId, seq })))!;
      expect(whole).toMatchObject({ seq, database: 'data/memory/brain.db', total: expected[seq]!.length, next_cursor: null });
      expect(whole.items.map((r) => r.key).sort()).toEqual(expected[seq]);
      const pages = await walk({ agentId, seq, limit: 2 });
      expect(pages.length).toBe(Math.ceil(whole.total / 2));
      expect(pages.flatMap((p) => p.items)).toEqual(whole.items);
    }
    const at2 = value(await same((s) => s.getDatabaseRecords({ agentId, seq: 2 })))!;
    const byKey = new Map(at2.items.map((r) => [r.key, r]));
    expect(byKey.get('pager')).toMatchObject({ category: 'daily', seq: 2 });
    expect(byKey.get('gateway')).toMatchObject({ content: 'The gateway is 10.20.0.9', seq: 1 });
    expect(byKey.get('dns')).toMatchObject({ category: 'core', seq: 0 });
    const runbook = byKey.get('runbook')!;
    expect(runbook.content_length).toBe([...LONG_CONTENT].length);
    expect(runbook.content).toBe([...LONG_CONTENT].slice(0, 400).join(''));
    expect(JSON.stringify(at2)).not.toMatch(/other agent|Changed elsewhere/);
  });

  it('database records: a Hermes agent\'s sessions (not its curated entries) at every sequence, page by page, within its tenant', async () => {
    const agentId = h.hermes.agentId;
    const expected = [['sess-a', 'sess-b', 'sess-c', 'sess-d'], ['sess-a', 'sess-b', 'sess-c', 'sess-d', 'sess-e'], ['sess-a', 'sess-b', 'sess-c', 'sess-d', 'sess-e', 'sess-f']];
    for (let seq = 0; seq <= 2; seq++) {
      const whole = value(await same((s) => s.getDatabaseRecords({ agentId, seq, tenantId: TENANT })))!;
      expect(whole).toMatchObject({ seq, database: 'state.db', total: expected[seq]!.length });
      expect(whole.items.map((r) => r.key).sort()).toEqual(expected[seq]);
      expect(pagesOf(await walk({ agentId, seq, limit: 2 }))).toEqual(whole.items);
      expect(pagesOf(await walk({ agentId, seq, limit: 3, tenantId: TENANT }))).toEqual(whole.items);
    }
    const at1 = value(await same((s) => s.getDatabaseRecords({ agentId, seq: 1 })))!;
    expect(at1.items.find((r) => r.key === 'sess-e')).toMatchObject({ category: 'telegram', seq: 1 });
    expect(at1.items.find((r) => r.key === 'sess-a')).toMatchObject({ category: 'cli', seq: 1 });
    expect(at1.items.find((r) => r.key === 'sess-c')).toMatchObject({ seq: 0 });
    expect(value(await same((s) => s.getDatabaseRecords({ agentId, seq: 1, tenantId: null })))).toBeNull();
  });

  it('database records: none for an OpenClaw agent; refusals (limit, cursor, sequence) the same', async () => {
    expect(value(await same((s) => s.getDatabaseRecords({ agentId: A1, seq: 1 })))).toEqual({ seq: 1, database: null, total: 0, items: [], next_cursor: null });
    const agentId = h.zeroclaw.agentId;
    expect(await same((s) => s.getDatabaseRecords({ agentId, seq: 3 }))).toMatchObject({ error: { code: 'sequence_out_of_range' } });
    expect(await same((s) => s.getDatabaseRecords({ agentId, seq: 0, limit: 0 }))).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await same((s) => s.getDatabaseRecords({ agentId, seq: 0, cursor: 'nonsense' }))).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await same((s) => s.getDatabaseRecords({ agentId: EMPTY, seq: 0 }))).toMatchObject({ error: { code: 'never_synced' } });
    expect(value(await same((s) => s.getDatabaseRecords({ agentId: UNKNOWN, seq: 0 })))).toBeNull();
    // A cursor holding U+0000 (PostgreSQL text cannot) pages on from the same place on both: one this list
    // gave out (its list's digest, first) with its position replaced.
    const given = value(await same((s) => s.getDatabaseRecords({ agentId, seq: 2, limit: 1 })))!.next_cursor!;
    const [list] = JSON.parse(Buffer.from(given, 'base64url').toString('utf8')) as [string, unknown];
    for (const at of ['10000000-0000-4000-8000-000000000004\u0000x', '\u0000']) {
      const cursor = Buffer.from(JSON.stringify([list, [at]])).toString('base64url');
      expect(value(await same((s) => s.getDatabaseRecords({ agentId, seq: 2, cursor })))!.items.length).toBeGreaterThan(0);
    }
    const { embedded, scaleOut } = await each((s) => s.getDatabaseRecords({ agentId, seq: 2, limit: 500 }));
    expect(value(scaleOut)!.items.length).toBe(value(embedded)!.items.length);
    // One past the largest page is refused in words on both (it was cut to 500).
    expect(await same((s) => s.getDatabaseRecords({ agentId, seq: 2, limit: 501 })))
      .toMatchObject({ error: { code: 'invalid_input', message: 'The page size (limit) must be at most 500, got 501.' } });
  });
}

const pagesOf = (pages: { items: unknown[] }[]) => pages.flatMap((p) => p.items);
