/**
 * Keyset paging of the dashboard's long lists, through the real pipeline (OpenClaw workspace → sync
 * → ledger → index): walking every page of the change feed, a sequence's ops, a lineage and the
 * Memories list returns exactly the whole list in order, also when a sync lands between two pages;
 * the page queries read the index in order (EXPLAIN QUERY PLAN: no sort of the whole history).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LineageDb } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger';
import { closeDatabase } from '@/db/client';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { fetchAllPages } from '@/lib/ui/paging';
import { forgetStatements } from './queries/prepared';
import {
  getChanges, getRecordLineage, getRecordsAt, getSequence, getSequenceOps, getSequenceRaw, type ChangeItem, type RecordSort,
} from './queries';

const SECTIONS = 120;
const EDITS = 23;
const section = (i: number, rev = 0) => `## Note ${String(i).padStart(3, '0')}\nNote ${i} says ${rev === 0 ? 'hello' : `revision ${rev}`}.\n`;
const notes = (revOf: (i: number) => number, from = 0, to = SECTIONS) =>
  `# Notes\n\n${Array.from({ length: to - from }, (_, k) => section(from + k, revOf(from + k))).join('\n')}`;

let sb: Awaited<ReturnType<typeof makeSandbox>>;
let ledger: Ledger;
let db: LineageDb;
let agentId = '';
let sync: () => Promise<unknown>;
let extraTurn = 0;

/** One more sync with a new section (what "an ingest between two pages" does). */
async function ingest(): Promise<void> {
  extraTurn += 1;
  await sb.write(`memory/semantic/extra-${extraTurn}.md`, `# Extra\n\n## Extra ${extraTurn}\nAdded while a list was being paged.\n`);
  await sync();
}

beforeAll(async () => {
  sb = await makeSandbox('lineage-paging-');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  await sb.write('MEMORY.md', '# MEMORY\n\n## Now\nPaging the lists.\n');
  await sb.write('memory/semantic/notes.md', notes(() => 0));
  const first = (await sync()) as { agent: { alf_agent_id: string } };
  agentId = first.agent.alf_agent_id;
  // Note 0 changes in every sync (a long lineage); notes 1–40 change once; then notes 100–119 move to another file.
  for (let rev = 1; rev <= EDITS; rev += 1) {
    await sb.write('memory/semantic/notes.md', notes((i) => (i === 0 ? rev : i <= 40 && rev >= 2 ? 1 : 0)));
    await sync();
  }
  await sb.write('memory/semantic/notes.md', notes((i) => (i === 0 ? EDITS : i <= 40 ? 1 : 0), 0, 100));
  await sb.write('memory/semantic/old-notes.md', notes(() => 0, 100, SECTIONS));
  await sync();
  ledger = openLedger(sb.dataDir);
  db = ledger.db;
}, 120_000);

afterAll(async () => {
  closeDatabase(ledger.db);
  await sb.cleanup();
});

const flat = (page: { groups: { changes: ChangeItem[] }[] }) => page.groups.flatMap((g) => g.changes);
const changeKey = (c: ChangeItem) => `${c.seq}|${c.op}|${c.record_id}`;

describe('keyset paging', () => {
  it('the change feed: every page walked is exactly the whole feed, newest first, across an ingest', async () => {
    const since = new Date(0);
    const whole = flat(getChanges({ db, since, agentId, limit: 1000 }));
    expect(whole.length).toBeGreaterThan(SECTIONS + EDITS + 40);
    let ingested = false;
    const walked = await fetchAllPages(async (cursor) => {
      const page = getChanges({ db, since, agentId, limit: 17, ...(cursor ? { cursor } : {}) });
      if (!ingested && cursor) {
        ingested = true;
        await ingest();
      }
      return { items: flat(page), next_cursor: page.next_cursor };
    });
    expect(ingested).toBe(true);
    expect(walked.map(changeKey)).toEqual(whole.map(changeKey));
    expect(new Set(walked.map(changeKey)).size).toBe(walked.length);
    // The change synced during the walk is at the head of a fresh first page.
    expect(flat(getChanges({ db, since, agentId, limit: 1 }))[0]!.origin_file).toBe(`memory/semantic/extra-${extraTurn}.md`);
  });

  it('a sequence\'s ops: every page of each op kind walked is exactly its ops, across an ingest', async () => {
    const whole = getSequence({ db, agentId, seq: 0 })!.ops.filter((o) => o.op === 'create');
    expect(whole).toHaveLength(SECTIONS + 1);
    const first = getSequence({ db, agentId, seq: 0, opsLimit: 25 })!;
    expect(first.op_counts).toEqual({ create: SECTIONS + 1, update: 0, delete: 0, move: 0 });
    expect(first.ops).toHaveLength(25);
    let ingested = false;
    const walked = await fetchAllPages(async (cursor) => {
      if (cursor === null) return { items: first.ops, next_cursor: first.op_cursors.create };
      if (!ingested) {
        ingested = true;
        await ingest();
      }
      return getSequenceOps({ db, agentId, seq: 0, op: 'create', limit: 25, cursor })!;
    });
    expect(walked).toEqual(whole);
    const moves = getSequence({ db, agentId, seq: EDITS + 1, opsLimit: 7 })!;
    expect(moves.op_counts.move).toBe(SECTIONS - 100);
    const allMoves = await fetchAllPages(async (cursor) => (cursor === null
      ? { items: moves.ops.filter((o) => o.op === 'move'), next_cursor: moves.op_cursors.move }
      : getSequenceOps({ db, agentId, seq: EDITS + 1, op: 'move', limit: 7, cursor })!));
    expect(allMoves.map((o) => [o.from_file, o.origin_file])).toEqual(Array(SECTIONS - 100).fill(['memory/semantic/notes.md', 'memory/semantic/old-notes.md']));
  });

  it("a sequence's raw files page by page: each page is the whole list's slice, counts and op ids alike, moves under both files", async () => {
    for (const seq of [0, EDITS + 1]) {
      const whole = getSequence({ db, agentId, seq, opsLimit: 7 })!;
      expect([whole.raw_count, whole.raw_cursor]).toEqual([whole.raw.length, null]);
      const first = getSequence({ db, agentId, seq, opsLimit: 7, rawLimit: 1 })!;
      expect([first.raw, first.raw_count]).toEqual([whole.raw.slice(0, 1), whole.raw.length]);
      const walked = await fetchAllPages(async (cursor) => (cursor === null
        ? { items: first.raw, next_cursor: first.raw_cursor }
        : getSequenceRaw({ db, agentId, seq, limit: 1, opsLimit: 7, cursor })!));
      expect(walked).toEqual(whole.raw);
      expect(walked.length).toBeGreaterThan(1);
    }
    // The move sync's second page (old-notes.md) counts the 20 moves into it, the first (notes.md) the 20 out of it.
    const moved = getSequence({ db, agentId, seq: EDITS + 1, opsLimit: 7, rawLimit: 1 })!;
    const next = getSequenceRaw({ db, agentId, seq: EDITS + 1, limit: 1, opsLimit: 7, cursor: moved.raw_cursor! })!;
    expect([moved.raw[0]!.path, moved.raw[0]!.record_count, next.items[0]!.path, next.items[0]!.record_count])
      .toEqual(['memory/semantic/notes.md', SECTIONS - 100, 'memory/semantic/old-notes.md', SECTIONS - 100]);
    expect(next.next_cursor).toBeNull();
  });

  it("a sequence's raw files: every op counted, ids only of the ops on the page (at most 20 a file); moves under both files", () => {
    const NOTES = 'memory/semantic/notes.md';
    const whole = getSequence({ db, agentId, seq: 0 })!;
    const paged = getSequence({ db, agentId, seq: 0, opsLimit: 25 })!;
    const notesOps = whole.ops.filter((o) => o.origin_file === NOTES).map((o) => o.record_id);
    expect(notesOps).toHaveLength(SECTIONS);
    expect(whole.raw.find((r) => r.path === NOTES)).toMatchObject({ record_count: SECTIONS, record_ids: notesOps });
    const onPage = paged.ops.filter((o) => o.origin_file === NOTES).map((o) => o.record_id);
    expect(paged.raw.find((r) => r.path === NOTES)).toMatchObject({ record_count: SECTIONS, record_ids: onPage.slice(0, 20) });
    expect(paged.raw.find((r) => r.path === 'MEMORY.md')).toMatchObject({ record_count: 1, record_ids: whole.raw.find((r) => r.path === 'MEMORY.md')!.record_ids });
    // The sync that moved notes 100–119 from notes.md to old-notes.md: 20 moves, each touching both files.
    const moved = getSequence({ db, agentId, seq: EDITS + 1, opsLimit: 7 })!;
    for (const path of [NOTES, 'memory/semantic/old-notes.md']) {
      const file = moved.raw.find((r) => r.path === path)!;
      expect(file.record_count).toBe(SECTIONS - 100);
      expect(file.record_ids).toEqual(moved.ops.filter((o) => o.op === 'move').map((o) => o.record_id));
      expect(file.record_ids).toHaveLength(7);
    }
  });

  it('a lineage: pages newest first and oldest first are the whole chain, each with its diff base', async () => {
    const noteId = (n: number) => getRecordsAt({ db, agentId, q: `Note ${n} says`, limit: 5 })!.items[0]!.record_id;
    for (const recordId of [noteId(0), noteId(105)]) {
      const whole = getRecordLineage({ db, agentId, recordId })!;
      for (const order of ['newest', 'oldest'] as const) {
        const expected = order === 'newest' ? [...whole.versions].reverse() : whole.versions;
        const pages: { versions: typeof whole.versions; before: (typeof whole.versions)[number] | null }[] = [];
        const walked = await fetchAllPages(async (cursor) => {
          const page = getRecordLineage({ db, agentId, recordId, limit: 5, order, ...(cursor ? { cursor } : {}) })!;
          pages.push(page);
          return { items: page.versions, next_cursor: page.next_cursor };
        });
        expect(walked).toEqual(expected);
        for (const page of pages) {
          const oldest = order === 'newest' ? page.versions.at(-1)! : page.versions[0]!;
          const at = whole.versions.indexOf(whole.versions.find((v) => v.seq === oldest.seq && v.record_id === oldest.record_id)!);
          expect(page.before).toEqual(at > 0 ? whole.versions[at - 1] : null);
        }
      }
      expect(getRecordLineage({ db, agentId, recordId, limit: 5 })!.version_count).toBe(whole.versions.length);
    }
    expect(getRecordLineage({ db, agentId, recordId: noteId(0) })!.versions).toHaveLength(EDITS + 1);
    const moved = getRecordLineage({ db, agentId, recordId: noteId(105) })!;
    expect(moved.chain).toHaveLength(2);
    expect(moved.versions.map((v) => v.op)).toEqual(['create', 'move']);
  });

  it('the Memories list: each sort walked page by page is the whole list in that order, filtered by text, across an ingest', async () => {
    const whole = getRecordsAt({ db, agentId, limit: 1000 })!;
    const ids = whole.items.map((r) => r.record_id);
    const orders: Record<RecordSort, (a: (typeof whole.items)[number], b: (typeof whole.items)[number]) => number> = {
      file: (a, b) => ((a.origin_file ?? '') < (b.origin_file ?? '') ? -1 : (a.origin_file ?? '') > (b.origin_file ?? '') ? 1 : 0),
      heading: (a, b) => ((a.heading ?? '') < (b.heading ?? '') ? -1 : (a.heading ?? '') > (b.heading ?? '') ? 1 : 0),
      changed: (a, b) => b.seq - a.seq,
    };
    for (const sort of ['file', 'heading', 'changed'] as const) {
      const latest = getRecordsAt({ db, agentId, sort, limit: 1000 })!;
      const all = latest.items;
      const byFile = getRecordsAt({ db, agentId, limit: 1000 })!.items.map((r) => r.record_id);
      expect(new Set(all.map((r) => r.record_id))).toEqual(new Set(byFile));
      expect(byFile.length).toBeGreaterThanOrEqual(ids.length);
      expect([...all].sort(orders[sort]).map((r) => r.record_id)).toEqual(all.map((r) => r.record_id));
      let ingested = false;
      const at = latest.at;
      const walked = await fetchAllPages(async (cursor) => {
        if (cursor && !ingested) {
          ingested = true;
          await ingest();
        }
        return getRecordsAt({ db, agentId, at, sort, limit: 13, ...(cursor ? { cursor } : {}) })!;
      });
      // The first page read the latest sequence from the ordering index; the later ones, after the ingest, read sequence `at`
      // by computing every record's version there: the two ways give the same list.
      expect(walked).toEqual(all);
    }
    const revised = getRecordsAt({ db, agentId, at: whole.at, q: 'REVISION 1.', limit: 1000 })!;
    expect(revised.total).toBe(40);
    expect(revised.items.every((r) => r.content.includes('revision 1.'))).toBe(true);
  });

  it('a cursor that is not one the list gave out is refused in words', () => {
    const bad = ['garbage!', Buffer.from('[1,2,3]').toString('base64url'), Buffer.from('{"a":1}').toString('base64url')];
    for (const cursor of bad) {
      expect(() => getChanges({ db, since: new Date(0), cursor })).toThrow(/paging cursor .* is not one this list gave out/);
      expect(() => getSequenceOps({ db, agentId, seq: 0, op: 'create', cursor })).toThrow(/paging cursor/);
      expect(() => getSequenceRaw({ db, agentId, seq: 0, cursor })).toThrow(/paging cursor/);
      expect(() => getRecordsAt({ db, agentId, cursor })).toThrow(/paging cursor/);
      expect(() => getRecordLineage({ db, agentId, recordId: getRecordsAt({ db, agentId, limit: 1 })!.items[0]!.record_id, cursor })).toThrow(/paging cursor/);
    }
    const byFile = getRecordsAt({ db, agentId, limit: 3 })!.next_cursor!;
    expect(() => getRecordsAt({ db, agentId, sort: 'changed', cursor: byFile })).toThrow(/sorted by file, not by changed/);
  });
});

/** The query plans of every statement `run` prepares (EXPLAIN QUERY PLAN, parameters bound to NULL). */
function plansOf(run: () => unknown): { sql: string; plan: string }[] {
  const sqlite = db.sqlite;
  const seen: string[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  forgetStatements(sqlite);
  sqlite.prepare = ((source: string) => {
    seen.push(source);
    return prepare(source);
  }) as typeof sqlite.prepare;
  try {
    run();
  } finally {
    sqlite.prepare = prepare as typeof sqlite.prepare;
  }
  return seen.map((text) => {
    const stmt = prepare(`EXPLAIN QUERY PLAN ${text}`);
    const params = Array.from({ length: (text.match(/\?/g) ?? []).length }, () => null);
    const rows = stmt.all(...params) as { detail: string }[];
    if (process.env.SHOW_PLANS) console.log(`${text.replace(/\s+/g, " ").slice(0, 160)}\n  => ${rows.map((r) => r.detail).join(" | ")}`);
    return { sql: text, plan: rows.map((r) => r.detail).join('\n') };
  });
}

describe('each page is read in index order (EXPLAIN QUERY PLAN)', () => {
  const pageQuery = (plans: { sql: string; plan: string }[], marker: RegExp) => {
    const found = plans.filter((p) => marker.test(p.sql));
    expect(found.length, plans.map((p) => p.sql).join('\n---\n')).toBeGreaterThan(0);
    return found;
  };

  it('the change feed walks a synced_at index backwards: no sort of the window', () => {
    for (const agent of [undefined, agentId]) {
      // A cursor of the very feed it pages (a feed's cursor is refused by another agent's feed).
      const cursor = getChanges({ db, since: new Date(0), agentId: agent, limit: 5 }).next_cursor!;
      for (const plan of pageQuery(plansOf(() => getChanges({ db, since: new Date(0), agentId: agent, limit: 5, cursor })), /ORDER BY v\.synced_at DESC, v\.id DESC/)) {
        expect(plan.plan).toMatch(/record_versions_(agent_)?synced_idx \((agent_id=\? AND )?synced_at>\? AND synced_at<\?\)/);
        expect(plan.plan).not.toMatch(/TEMP B-TREE/);
      }
    }
  });

  it("a sequence's ops page walks (agent_id, seq, op, entry_kind)", () => {
    const cursor = getSequence({ db, agentId, seq: 0, opsLimit: 5 })!.op_cursors.create!;
    for (const plan of pageQuery(plansOf(() => getSequenceOps({ db, agentId, seq: 0, op: 'create', limit: 5, cursor })), /ORDER BY v\.entry_kind, v\.id/)) {
      expect(plan.plan).toMatch(/record_versions_seq_op_idx/);
      expect(plan.plan).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("a page of a sequence's raw files counts its own files' ops, each on the (agent_id, seq, entry_kind, origin_file) index", () => {
    const cursor = getSequence({ db, agentId, seq: 0, opsLimit: 5, rawLimit: 1 })!.raw_cursor!;
    for (const run of [() => getSequence({ db, agentId, seq: 0, opsLimit: 5, rawLimit: 1 }), () => getSequenceRaw({ db, agentId, seq: 0, limit: 1, opsLimit: 5, cursor })]) {
      const plans = plansOf(run);
      for (const plan of pageQuery(plans, /AS own_ops/)) {
        expect(plan.plan).toMatch(/COVERING INDEX record_versions_seq_file_idx \(agent_id=\? AND seq=\? AND entry_kind=\? AND origin_file=\?\)/);
      }
      // No count over every op of the sequence by file.
      expect(plans.map((p) => p.sql).join('\n')).not.toMatch(/GROUP BY entry_kind, origin_file/);
    }
  });

  it('a first Memories page at the latest sequence counts no record: its facets and total are the kept counters', () => {
    const plans = plansOf(() => getRecordsAt({ db, agentId, limit: 5 }));
    expect(plans.map((p) => p.sql).join('\n')).toMatch(/FROM record_facets/);
    for (const plan of plans) expect(plan.sql).not.toMatch(/count\(\*\)|GROUP BY/);
  });

  it('a lineage page reads each record of the chain through the key index from the cursor', () => {
    const recordId = getRecordsAt({ db, agentId, q: 'Note 0 says', limit: 1 })!.items[0]!.record_id;
    const cursor = getRecordLineage({ db, agentId, recordId, limit: 5 })!.next_cursor!;
    for (const plan of pageQuery(plansOf(() => getRecordLineage({ db, agentId, recordId, limit: 5, cursor })), /ORDER BY v\.seq DESC, v\.entry_kind DESC LIMIT/)) {
      expect(plan.plan).toMatch(/record_versions_key_idx \(agent_id=\? AND record_id=\?/);
      expect(plan.plan).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('a Memories page at the latest sequence walks the sort order index, for each sort', () => {
    const index: Record<RecordSort, RegExp> = {
      file: /record_versions_file_order_idx \(agent_id=\? AND <expr>>\?\)/,
      heading: /record_versions_heading_order_idx \(agent_id=\? AND <expr>>\?\)/,
      changed: /record_versions_agent_seq_idx \(agent_id=\? AND seq<\?\)/,
    };
    for (const sort of ['file', 'heading', 'changed'] as const) {
      const cursor = getRecordsAt({ db, agentId, sort, limit: 5 })!.next_cursor!;
      for (const plan of pageQuery(plansOf(() => getRecordsAt({ db, agentId, sort, limit: 5, cursor })), /CROSS JOIN records r/)) {
        expect(plan.plan).toMatch(index[sort]);
        expect(plan.plan).not.toMatch(/TEMP B-TREE/);
      }
    }
  });

  it('a Memories page at an earlier sequence walks the sort order index too, and its first page counts no record', () => {
    const at = Math.floor((getRecordsAt({ db, agentId, limit: 1 })!.at) / 2);
    const first = plansOf(() => getRecordsAt({ db, agentId, at, limit: 5 }));
    expect(first.map((p) => p.sql).join('\n')).toMatch(/FROM record_facet_changes/);
    for (const plan of first) expect(plan.sql).not.toMatch(/count\(\*\)/);
    for (const sort of ['file', 'heading', 'changed'] as const) {
      const cursor = getRecordsAt({ db, agentId, at, sort, limit: 5 })!.next_cursor!;
      expect(cursor).toBeTruthy();
      for (const plan of pageQuery(plansOf(() => getRecordsAt({ db, agentId, at, sort, limit: 5, cursor })), /INDEXED BY/)) {
        expect(plan.plan).toMatch(sort === 'changed' ? /record_versions_agent_seq_idx \(agent_id=\?/ : new RegExp(`record_versions_${sort}_order_idx \\(agent_id=\\?`));
        expect(plan.plan).not.toMatch(/TEMP B-TREE/);
      }
    }
  });
});
