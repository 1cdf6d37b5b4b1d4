import { embeddedStorage } from '@/lib/storage/embedded';
import { gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '@/lib/core/archive';
import { HistoryGenerator } from './testing/generator';
import { dumpIndex, tempLedger } from './testing/temp-ledger';
import { wordIndexProblems } from './testing/word-index-check';
import { rebuildIndex } from './rebuild';
import {
  getAgentMemoryDto, getChanges, getRecordLineage, getRecordsAt, getSequence, getSequences, getWorkspaceFile, getWorkspaceTree,
  listAgentsWithStats, parseSince, searchFirstAppearance, sequenceAt, streamWorkspaceArchive, workspaceAlfAt,
} from './queries';
import type { Ledger } from '@/lib/ledger';

const AGENT = '3f2d1c0b-2222-4a2b-8c3d-000000000001';
const OTHER = '3f2d1c0b-2222-4a2b-8c3d-000000000002';
const TURNS = 30;
const ROLLOVER_TURN = 18;

let ledger: Ledger;
let cleanup: () => void;
let gen: HistoryGenerator;
const facts: Record<'kept' | 'moved' | 'deleted', string> = { kept: '', moved: '', deleted: '' };
let move: { from: string; to: string; seq: number };
let rolloverSeq = -1;

async function toBuffer(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

async function untar(bytes: Buffer): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      toBuffer(stream).then((b) => { out.set(header.name, b); next(); }, reject);
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  Readable.from([gunzipSync(bytes)]).pipe(extract);
  await done;
  return out;
}

function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          toBuffer(stream).then((b) => { out.set(entry.fileName, b); zip.readEntry(); }, reject);
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

const asMap = (files: Map<string, Uint8Array>) => new Map([...files].map(([p, b]) => [p, Buffer.from(b).toString('hex')]));

beforeAll(async () => {
  ({ ledger, cleanup } = tempLedger());
  gen = new HistoryGenerator(ledger, AGENT, 42);
  gen.register();
  for (let i = 0; i < 4; i++) gen.addRecord();
  await gen.sync(0);
  for (let turn = 1; turn <= TURNS; turn++) {
    gen.randomMutations();
    if (turn === 3) facts.kept = gen.plantFact('MEMORY.md');
    if (turn === 5) facts.moved = gen.plantFact('memory/2026-01-01.md');
    if (turn === 7) facts.deleted = gen.plantFact('memory/2026-01-02.md');
    if (turn === 12) {
      const from = gen.planted.find((p) => p.fact === facts.moved)!.recordId;
      move = { from, to: gen.moveRecord(from, 'memory/archive/old.md'), seq: -1 };
    }
    if (turn === 15) gen.deleteRecord(gen.planted.find((p) => p.fact === facts.deleted)!.recordId);
    const truth = await gen.sync(turn, { rollover: turn === ROLLOVER_TURN });
    if (turn === 12) move.seq = truth!.seq;
    if (turn === ROLLOVER_TURN) rolloverSeq = truth!.seq;
  }
  // A second agent so queries are seen to scope by agent and tenant.
  const other = new HistoryGenerator(ledger, OTHER, 7);
  other.register('tenant-b');
  other.plantFact('MEMORY.md');
  await other.sync(0);
});

afterAll(() => cleanup?.());

describe('first appearance', () => {
  it('finds planted facts at their planting sequence and file, case-insensitively', () => {
    for (const fact of Object.values(facts)) {
      const planted = gen.planted.find((p) => p.fact === fact)!;
      for (const q of [fact, fact.toUpperCase()]) {
        const result = searchFirstAppearance({ db: ledger.db, q, agentId: AGENT, limit: 50 });
        expect(result.first).toMatchObject({ agent_id: AGENT, record_id: planted.recordId, sequence: planted.seq, origin_file: planted.file });
        expect(result.first!.snippet.toLowerCase()).toContain(fact);
      }
    }
  });

  it('lists later appearances of a fact that moved files, oldest first', () => {
    const result = searchFirstAppearance({ db: ledger.db, q: facts.moved, agentId: AGENT, limit: 100 });
    const seqs = [result.first!, ...result.appearances].map((a) => a.sequence);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(result.total).toBe(1 + result.appearances.length);
    expect(result.appearances.find((a) => a.record_id === move.to)).toMatchObject({ sequence: move.seq, origin_file: 'memory/archive/old.md' });
  });

  it('finds IPs and short terms, pages appearances and scopes by tenant', () => {
    const planted = gen.planted.find((p) => p.fact === facts.kept)!;
    const n = Number(facts.kept.slice(4, 9));
    const ip = searchFirstAppearance({ db: ledger.db, q: `10.0.${n % 250}.17`, agentId: AGENT });
    expect(ip.first?.sequence).toBeLessThanOrEqual(planted.seq);
    const short = searchFirstAppearance({ db: ledger.db, q: 'Ed', agentId: AGENT, limit: 2, offset: 1 });
    const all = searchFirstAppearance({ db: ledger.db, q: 'ed', agentId: AGENT, limit: 500 });
    expect(short.total).toBe(all.total);
    expect(short.appearances).toEqual(all.appearances.slice(1, 3));
    expect(searchFirstAppearance({ db: ledger.db, q: facts.kept, tenantId: 'tenant-b' }).first).toBeNull();
    expect(searchFirstAppearance({ db: ledger.db, q: 'no such fact anywhere' }).first).toBeNull();
    expect(() => searchFirstAppearance({ db: ledger.db, q: '   ' })).toThrow(/empty/);
  });
});

describe('changes since', () => {
  it('matches the generator ops synced at or after the time, grouped by day', () => {
    const since = gen.timeOf(20);
    const result = getChanges({ db: ledger.db, since, agentId: AGENT });
    const got = result.groups.flatMap((g) => g.changes.map((c) => `${c.seq}:${c.op}:${c.record_id}`)).sort();
    // A move is one change, the record moved to's: its delete half is no change of its own.
    const want = gen.turns.filter((t) => t.syncedAt >= since.toISOString()).flatMap((t) => {
      const from = new Set(t.moves.map((m) => m.from));
      const to = new Set(t.moves.map((m) => m.to));
      return t.ops.filter((o) => !(o.op === 'delete' && from.has(o.recordId)))
        .map((o) => `${t.seq}:${o.op === 'create' && to.has(o.recordId) ? 'move' : o.op}:${o.recordId}`);
    }).sort();
    expect(want.some((w) => w.includes(':move:'))).toBe(true);
    expect(got).toEqual(want);
    for (const g of result.groups) for (const c of g.changes) expect(c.synced_at.slice(0, 10)).toBe(g.day);
    const deletes = getChanges({ db: ledger.db, since: gen.timeOf(0), agentId: AGENT, op: 'delete' });
    expect(deletes.groups.flatMap((g) => g.changes).every((c) => c.op === 'delete')).toBe(true);
  });

  it('parses since expressions and refuses garbage', () => {
    const now = new Date('2026-03-12T15:30:00Z'); // a Thursday
    expect(parseSince('7d', now).toISOString()).toBe('2026-03-05T15:30:00.000Z');
    expect(parseSince('this-week', now).toISOString()).toBe('2026-03-09T00:00:00.000Z');
    expect(parseSince('2026-03-01', now).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseSince('2026-03-01T10:00:00+02:00', now).toISOString()).toBe('2026-03-01T08:00:00.000Z');
    // The stored times are milliseconds: a finer lower bound rounds up (the parse alone cut it down), never down.
    expect(parseSince('2026-03-01T07:36:00.0001Z', now).toISOString()).toBe('2026-03-01T07:36:00.001Z');
    expect(parseSince('2026-03-01T07:35:59.9995Z', now).toISOString()).toBe('2026-03-01T07:36:00.000Z');
    expect(parseSince('2026-03-01T07:36:00.1230000Z', now).toISOString()).toBe('2026-03-01T07:36:00.123Z');
    expect(parseSince('2026-03-01T07:36:00.123Z', now).toISOString()).toBe('2026-03-01T07:36:00.123Z');
    for (const bad of ['yesterday-ish', '7x', '', '2026-13-45T99:99']) expect(() => parseSince(bad, now)).toThrow(/cannot read/);
  });
});

describe('point in time', () => {
  it('serves the generator workspace at every sequence, file by file', () => {
    for (const [seq, files] of gen.workspaceAt) {
      const tree = getWorkspaceTree({ db: ledger.db, agentId: AGENT, seq })!;
      expect(tree.files.map((f) => f.path)).toEqual([...files.keys()].sort());
      for (const [path, bytes] of files) {
        expect(Buffer.from(getWorkspaceFile({ db: ledger.db, agentId: AGENT, seq, path })!).equals(Buffer.from(bytes))).toBe(true);
      }
      expect(getWorkspaceFile({ db: ledger.db, agentId: AGENT, seq, path: 'no/such.md' })).toBeNull();
    }
  });

  it('lists the generator records live at every sequence', () => {
    for (const [seq, recs] of gen.recordsAt) {
      const got = getRecordsAt({ db: ledger.db, agentId: AGENT, at: seq, limit: 1000 })!;
      expect(got.items.map((r) => r.record_id).sort()).toEqual(recs.map((r) => r.id).sort());
      expect(got.total).toBe(recs.length);
    }
  });

  it('downloads tar.gz, zip and .alf byte-exact and deterministic', async () => {
    for (const seq of [0, 9, rolloverSeq, gen.latest!]) {
      const want = asMap(gen.workspaceAt.get(seq)!);
      const tgz = await toBuffer(streamWorkspaceArchive({ db: ledger.db, agentId: AGENT, seq, format: 'tar.gz' })!);
      expect(asMap(await untar(tgz))).toEqual(want);
      const again = await toBuffer(streamWorkspaceArchive({ db: ledger.db, agentId: AGENT, seq, format: 'tar.gz' })!);
      expect(again.equals(tgz)).toBe(true);
      const zip = await toBuffer(streamWorkspaceArchive({ db: ledger.db, agentId: AGENT, seq, format: 'zip' })!);
      expect(asMap(await unzip(zip))).toEqual(want);
      const alf = await readSnapshot(await workspaceAlfAt({ storage: embeddedStorage(ledger), agentId: AGENT, seq }));
      expect(asMap(new Map([...alf.raw].map(([p, b]) => [p.replace('raw/openclaw/', ''), b])))).toEqual(want);
      expect(alf.records.map((r) => r.id).sort()).toEqual(gen.recordsAt.get(seq)!.map((r) => r.id).sort());
    }
  });

  it('answers the sequence in force at a time', () => {
    expect(sequenceAt({ db: ledger.db, agentId: AGENT, time: new Date(gen.timeOf(0).getTime() - 1) })).toBeNull();
    const at = sequenceAt({ db: ledger.db, agentId: AGENT, time: new Date(gen.timeOf(10).getTime() + 1000) });
    expect(at).toEqual({ sequence: gen.turns.find((t) => t.syncedAt === gen.timeOf(10).toISOString())!.seq, synced_at: gen.timeOf(10).toISOString() });
  });
});

describe('sequences, rollover and provenance', () => {
  it('indexes the rollover snapshot with the ops the generator made', () => {
    const truth = gen.turns.find((t) => t.kind === 'snapshot' && t.seq === rolloverSeq)!;
    const detail = getSequence({ db: ledger.db, agentId: AGENT, seq: rolloverSeq })!;
    expect(detail.kind).toBe('snapshot');
    expect(detail.entries.map((e) => e.kind)).toEqual(['delta', 'snapshot']);
    const got = detail.ops.filter((o) => o.entry_kind === 'snapshot').map((o) => `${o.op}:${o.record_id}`).sort();
    expect(got).toEqual(truth.ops.map((o) => `${o.op}:${o.recordId}`).sort());
  });

  it('links a move with moved_from / moved_to, one chain from either id, and one op in the sequence', () => {
    const lineage = getRecordLineage({ db: ledger.db, agentId: AGENT, recordId: move.to })!;
    expect(lineage.moved_from).toMatchObject({ agent_id: AGENT, record_id: move.from, origin_file: 'memory/2026-01-01.md' });
    const old = getRecordLineage({ db: ledger.db, agentId: AGENT, recordId: move.from })!;
    expect(old.moved_to).toEqual([{ agent_id: AGENT, record_id: move.to, origin_file: 'memory/archive/old.md', seq: move.seq }]);
    expect(old.chain).toEqual(lineage.chain);
    expect(old.versions).toEqual(lineage.versions);
    expect(old.chain.slice(-2)).toEqual([move.from, move.to]);
    expect(old.versions.filter((v) => v.op === 'move' && v.seq === move.seq)).toMatchObject([
      { from_file: 'memory/2026-01-01.md', to_file: 'memory/archive/old.md', from_record_id: move.from, to_record_id: move.to },
    ]);
    expect(old.versions.some((v) => v.op === 'delete' && v.seq === move.seq)).toBe(false);
    const detail = getSequence({ db: ledger.db, agentId: AGENT, seq: move.seq })!;
    const moved = detail.ops.find((o) => o.record_id === move.to)!;
    expect(moved).toMatchObject({ op: 'move', moved_from: move.from, from_file: 'memory/2026-01-01.md', origin_file: 'memory/archive/old.md' });
    expect(moved.previous_content).toBe(moved.content);
    expect(detail.ops.find((o) => o.record_id === move.from)).toBeUndefined();
    expect(detail.raw.find((r) => r.path === 'memory/archive/old.md')?.record_ids).toContain(move.to);
  });

  it('pages the timeline by sequence', () => {
    const first = getSequences({ db: ledger.db, agentId: AGENT, limit: 5 })!;
    expect(first.items[0]?.seq).toBe(gen.latest);
    const all: number[] = [];
    let before: number | undefined;
    for (;;) {
      const page = getSequences({ db: ledger.db, agentId: AGENT, limit: 4, before })!;
      all.push(...page.items.map((i) => i.seq));
      if (page.next_before === null) break;
      before = page.next_before;
    }
    expect(all).toEqual(gen.turns.map((t) => t.seq).reverse());
  });

  it('lists agents with stats and the memory DTO', () => {
    const now = gen.timeOf(TURNS);
    const agents = listAgentsWithStats({ db: ledger.db, now, tenantId: null });
    expect(agents.map((a) => a.id)).toEqual([AGENT]);
    expect(agents[0]).toMatchObject({ latest_sequence: gen.latest, live_records: gen.records.length, last_sync_at: now.toISOString() });
    expect(agents[0]!.activity).toHaveLength(28);
    expect(agents[0]!.syncs_7d).toBe(gen.turns.filter((t) => t.syncedAt >= new Date(now.getTime() - 7 * 86_400_000).toISOString()).length);
    const dto = getAgentMemoryDto({ db: ledger.db, agentId: AGENT })!;
    expect(dto.map((d) => d.id).sort()).toEqual(gen.records.map((r) => r.id).sort());
    expect(Object.keys(dto[0]!)).toEqual(['id', 'memory_type', 'namespace', 'content', 'observed_at', 'created_at_alf', 'updated_at_alf', 'tags', 'source', 'raw_source_format', 'source_sequence']);
    expect(getAgentMemoryDto({ db: ledger.db, agentId: AGENT, tenantId: 'tenant-b' })).toBeNull();
  });
});

describe('rebuild', () => {
  it('equals the incremental index row for row', async () => {
    const before = dumpIndex(ledger);
    const progress: number[] = [];
    const result = await rebuildIndex({ ledger, onProgress: ({ done }) => progress.push(done) });
    expect(result.entries).toBe(gen.turns.length + 1);
    expect(progress).toEqual(Array.from({ length: result.entries }, (_, i) => i + 1));
    expect(dumpIndex(ledger)).toEqual(before);
    expect(result.record_versions).toBe(before.record_versions!.length);
    // The word index's triggers (delete, and the guard against updates) are back: a version deleted
    // after the rebuild leaves the index, and its content cannot be rewritten behind the index's back.
    const triggers = ledger.db.sqlite.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'record_versions'").get() as { n: number };
    expect(triggers.n).toBe(2);
    const first = ledger.db.sqlite.prepare("SELECT id FROM record_versions WHERE op <> 'delete' ORDER BY id LIMIT 1").pluck().get() as number;
    expect(() => ledger.db.sqlite.prepare("UPDATE record_versions SET content = content || ' zqxjv-after-rebuild' WHERE id = ?").run(first)).toThrow(/written once/);
    ledger.db.sqlite.prepare('DELETE FROM record_versions WHERE id = ?').run(first);
    expect(wordIndexProblems(ledger.db.sqlite)).toEqual([]);
  });
});
