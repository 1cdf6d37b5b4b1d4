/**
 * Each backend answers exactly what was asked (embedded: SQLite + fs; scale-out: the run's real
 * PostgreSQL 15 + radosgw), asserted on each, not only compared: a search `limit` over 500 is
 * refused in words (it was cut to 500), a prefix never ends inside a character (`cafe*` found a
 * decomposed `café`), a filter value is matched as given (the API trimmed it), and a paging cursor
 * is refused by any list but the one that gave it out (another agent, filter, op kind, sequence or
 * order paged some tail of that other list). Then: a list page size past its bound is refused (it was
 * cut), a prefix never ends inside a Hangul syllable either, a records cursor pages the sequence its
 * first page answered at, and a feed cursor is tied to its `since` and keeps the time it read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { writeDelta, writeSnapshot } from '@/lib/core/archive';
import { computeDelta } from '@/lib/core/delta';
import { NS } from '@/lib/core/ids';
import type { MemoryRecord } from '@/lib/core/record';
import { uuidV5 } from '@/lib/core/uuid';
import { isLedgerError } from '@/lib/ledger/errors';
import { openLedger } from '@/lib/ledger/ledger';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { freshBucket, freshDatabase, testS3Client, usePostgres, useRadosgw } from '@/tests/engines/use-engines';
import { embeddedStorage } from './embedded';
import { scaleOutStorage } from './scale-out';
import type { LineageStorage } from './types';

const A = '7e7e7e7e-5555-4a2b-8c3d-000000000001';
const B = '7e7e7e7e-5555-4a2b-8c3d-000000000002';
const START = Date.parse('2026-11-10T08:00:00Z');
const id = (n: string) => uuidV5(NS.alf, `exact-answers:${n}`);

interface Memory { n: string; content: string; namespace?: string; file?: string }

function toRecord(agentId: string, m: Memory): MemoryRecord {
  return {
    id: id(m.n), agent_id: agentId, content: m.content, memory_type: 'semantic',
    source: { runtime: 'openclaw', origin: 'workspace', origin_file: m.file ?? 'memory/notes.md' },
    raw_source_format: { heading: null, line_start: 1 }, temporal: { created_at: '2026-01-01T00:00:00Z' },
    status: 'active', namespace: m.namespace ?? 'daily', tags: [],
  };
}

/** A snapshot of the first state, then a delta per later state. */
async function uploads(agentId: string, states: Memory[][]): Promise<{ kind: 'snapshot' | 'delta'; base: number; bytes: Uint8Array; now: Date }[]> {
  const manifest = (now: Date) => ({ alf_version: '1.0.0', created_at: now.toISOString(), agent: { id: agentId, name: 'exact', source_runtime: 'openclaw' } });
  const out = [];
  let before: MemoryRecord[] = [];
  for (const [seq, state] of states.entries()) {
    const now = new Date(START + seq * 3_600_000);
    const records = state.map((m) => toRecord(agentId, m));
    out.push(seq === 0
      ? { kind: 'snapshot' as const, base: 0, now, bytes: await writeSnapshot({ manifest: manifest(now), records, layers: {}, raw: new Map(), extra: new Map() }) }
      : {
        kind: 'delta' as const, base: seq - 1, now,
        bytes: await writeDelta({ manifest: { ...manifest(now), sync: { base_sequence: seq - 1, new_sequence: seq } }, entries: computeDelta(before, records), layers: {}, rawChanged: new Map(), rawDeleted: [] }),
      });
    before = records;
  }
  return out;
}

const notes = (k: number, suffix = '') => Array.from({ length: k }, (_, i): Memory => ({ n: `note-${i}`, content: `plain note ${i}${suffix}`, file: 'memory/c.md' }));
const CAFES: Memory[] = [
  { n: 'composed', content: 'Café Zürich'.normalize('NFC'), file: 'memory/a.md' },
  { n: 'decomposed', content: 'Café Zürich'.normalize('NFD'), namespace: ' daily', file: 'memory/a.md' },
  { n: 'plain', content: 'Cafe Zurich', namespace: 'daily ', file: ' memory/b.md' },
];
/** 한국어 사전 composed (syllables), decomposed (conjoining jamo), mixed (하 + ᆫ: half of each), and an old jamo's block (ꥠ + ᅡ, which NFC leaves in pieces). */
const HANGUL: Memory[] = [
  { n: 'hangul-nfc', content: '한국어 사전'.normalize('NFC'), file: 'memory/k.md' },
  { n: 'hangul-nfd', content: '한국어 사전'.normalize('NFD'), file: 'memory/k.md' },
  { n: 'hangul-mixed', content: '\uD558\u11AB국어 사전', file: 'memory/k.md' },
  { n: 'hangul-old', content: '\uA960\u1161 옛글', file: 'memory/k.md' },
];
const STATES_A: Memory[][] = [
  [...CAFES, ...HANGUL, ...notes(6)],
  [...CAFES, ...HANGUL, ...notes(6, ', edited')],
  [...CAFES.map((m) => (m.n === 'plain' ? { ...m, content: 'Cafe Zurich, twice' } : m)), ...HANGUL, ...notes(6, ', edited again')],
];
const STATES_B: Memory[][] = [notes(6)];

const backends: [name: string, storage: LineageStorage][] = [];
let dir = '';

beforeAll(async () => {
  await Promise.all([usePostgres(), useRadosgw()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-exact-answers-'));
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const client = testS3Client(settings);
  const location = { bucket, prefix: 'lineage' };
  backends.push(['embedded', embeddedStorage(openLedger(dir))]);
  backends.push(['scale-out', scaleOutStorage({ db: await openPgDatabase(url), blobs: new S3BlobStore(client, location), client, location })]);
  for (const [, s] of backends) {
    for (const [agentId, states] of [[A, STATES_A], [B, STATES_B]] as const) {
      await s.registerAgent({ id: agentId, name: 'exact', sourceRuntime: 'openclaw', tenantId: null, now: new Date(START - 60_000) });
      for (const u of await uploads(agentId, states)) {
        if (u.kind === 'snapshot') await s.ingestSnapshot({ agentId, bytes: u.bytes, now: u.now });
        else await s.ingestDelta({ agentId, baseSequence: u.base, bytes: u.bytes, now: u.now });
      }
    }
  }
});

afterAll(async () => {
  for (const [, s] of backends) await s.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The refusal's words (a LedgerError `invalid_input`), or a failure when the verb answered. */
async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (isLedgerError(error) && error.code === 'invalid_input') return error.message;
    throw error;
  }
  throw new Error('expected invalid_input, got an answer');
}

const ANOTHER = 'This paging cursor belongs to another search or list (another agent, sequence, filter or order); start again from the first page.';

describe.each(['embedded', 'scale-out'])('%s answers exactly what was asked', (name) => {
  const storage = () => backends.find(([n]) => n === name)![1];

  it('a search limit over 500 is refused in words, not cut to 500', async () => {
    const s = storage();
    expect((await s.search({ q: 'note', limit: 500 })).total).toBeGreaterThan(0);
    for (const limit of [501, 5000]) {
      expect(await refusal(() => s.search({ q: 'note', limit }))).toBe(`limit must be at most 500 (later appearances per page), got "${limit}"; page with offset for more`);
    }
    expect(await refusal(() => s.search({ q: 'note', limit: 0 }))).toMatch(/^limit must be a positive whole number/);
  });

  it('a list page size past its bound is refused in words, not cut to the bound', async () => {
    const s = storage();
    const bound = (max: number, given: number) => `The page size (limit) must be at most ${max}, got ${given}.`;
    // Each bound itself is still a page.
    expect((await s.getRecordsAt({ agentId: A, limit: 1000 }))!.items.length).toBeGreaterThan(0);
    expect((await s.compareWorkspace({ agentId: A, from: 0, to: 2, limit: 2000 }))!.limit).toBe(2000);
    const cases: [max: number, run: (limit: number) => Promise<unknown>][] = [
      [1000, (limit) => s.getRecordsAt({ agentId: A, limit })],
      [1000, (limit) => s.getChanges({ since: new Date(0), limit })],
      [500, (limit) => s.getSequences({ agentId: A, limit })],
      [1000, (opsLimit) => s.getSequence({ agentId: A, seq: 1, opsLimit })],
      [1000, (rawLimit) => s.getSequence({ agentId: A, seq: 1, rawLimit })],
      [1000, (limit) => s.getSequenceOps({ agentId: A, seq: 0, op: 'create', limit })],
      [1000, (limit) => s.getSequenceRaw({ agentId: A, seq: 0, limit })],
      [1000, (opsLimit) => s.getSequenceRaw({ agentId: A, seq: 0, opsLimit })],
      [500, (limit) => s.getRecordLineage({ agentId: A, recordId: id('plain'), limit })],
      [2000, (limit) => s.compareWorkspace({ agentId: A, from: 0, to: 2, limit })],
    ];
    for (const [max, run] of cases) {
      for (const given of [max + 1, 1_000_000]) expect(await refusal(() => run(given)), String(run)).toBe(bound(max, given));
      expect(await refusal(() => run(0)), String(run)).toBe('limit must be a positive integer, got 0');
    }
    // compare cut a fraction to a whole number; it is refused like any other list's.
    expect(await refusal(() => s.compareWorkspace({ agentId: A, from: 0, to: 2, limit: 2.5 }))).toBe('limit must be a positive integer, got 2.5');
  });

  it('a prefix never ends inside a character: cafe* finds neither form of café, caf* and café* find both', async () => {
    const s = storage();
    const found = async (q: string) => {
      const r = await s.search({ q, agentId: A });
      return (r.first ? [r.first, ...r.appearances] : []).map((a) => a.record_id).filter((v, i, all) => all.indexOf(v) === i).sort();
    };
    const both = [id('composed'), id('decomposed')].sort();
    expect(await found('cafe*')).toEqual([id('plain')]);
    expect(await found('CAFE*')).toEqual([id('plain')]);
    for (const form of ['NFC', 'NFD'] as const) {
      expect(await found('café*'.normalize(form)), form).toEqual(both);
      expect(await found('zür*'.normalize(form)), form).toEqual(both);
      expect(await found('caf*'.normalize(form)), form).toEqual([...both, id('plain')].sort());
    }
  });

  it('a prefix or fragment never starts or ends inside a Hangul syllable, composed or written in jamo', async () => {
    const s = storage();
    const found = async (q: string) => {
      const r = await s.search({ q, agentId: A });
      return (r.first ? [r.first, ...r.appearances] : []).map((a) => a.record_id).filter((v, i, all) => all.indexOf(v) === i).sort();
    };
    const both = [id('hangul-nfc'), id('hangul-nfd')].sort();
    for (const form of ['NFC', 'NFD'] as const) {
      const q = (text: string) => text.normalize(form);
      // Whole syllables: found in either form (the mixed one holds 한 in neither, as ê + U+0323 holds ệ in neither).
      expect(await found(q('한*')), form).toEqual(both);
      expect(await found(q('한국*')), form).toEqual(both);
      expect(await found(q('한')), form).toEqual(both);
      expect(await found(q('사전*')), form).toEqual([...both, id('hangul-mixed')].sort());
      // A fragment after a whole syllable starts between characters, after 한 or its trailing jamo alike.
      expect(await found(q('국')), form).toEqual([...both, id('hangul-mixed')].sort());
      // Ending inside 한 (하 is its first two jamo): found in no form. Before, 하* found the decomposed one and the mixed one.
      expect(await found(q('하*')), form).toEqual([]);
      expect(await found(q('하')), form).toEqual([]);
    }
    // A lone leading jamo, and a fragment starting inside 한 (its vowel and trailing jamo): nothing.
    expect(await found('\u1112*')).toEqual([]);
    expect(await found('\u1161\u11AB')).toEqual([]);
    // An old leading jamo's block (ꥠ + ᅡ) is one character too, though NFC leaves it in pieces.
    expect(await found('\uA960*')).toEqual([]);
    expect(await found('\uA960\u1161*')).toEqual([id('hangul-old')]);
  });

  it('a filter value is matched as given: " daily" and "daily " are not "daily"', async () => {
    const s = storage();
    const ids = async (filters: Record<string, string>) => (await s.getRecordsAt({ agentId: A, ...filters }))!.items.map((r) => r.record_id).sort();
    expect(await ids({ namespace: ' daily' })).toEqual([id('decomposed')]);
    expect(await ids({ namespace: 'daily ' })).toEqual([id('plain')]);
    expect(await ids({ namespace: 'daily' })).not.toContain(id('decomposed'));
    expect(await ids({ namespace: 'daily' })).not.toContain(id('plain'));
    expect(await ids({ file: ' memory/b.md' })).toEqual([id('plain')]);
    expect(await ids({ file: 'memory/b.md' })).toEqual([]);
  });

  it('a records cursor pages the sequence its first page answered at: a sync between two pages changes nothing of the list', async () => {
    const s = storage();
    const C = name === 'embedded' ? '7e7e7e7e-5555-4a2b-8c3d-0000000000c1' : '7e7e7e7e-5555-4a2b-8c3d-0000000000c2';
    const [first, second] = await uploads(C, [notes(6), notes(6).filter((m) => m.n !== 'note-3').map((m) => ({ ...m, content: `${m.content}, renamed`, file: 'memory/z.md' }))]);
    await s.registerAgent({ id: C, name: 'exact', sourceRuntime: 'openclaw', tenantId: null, now: new Date(START - 60_000) });
    await s.ingestSnapshot({ agentId: C, bytes: first!.bytes, now: first!.now });
    const page1 = (await s.getRecordsAt({ agentId: C, limit: 2 }))!;
    expect(page1.at).toBe(0);
    const rest = (await s.getRecordsAt({ agentId: C, at: 0, limit: 4, cursor: page1.next_cursor! }))!;
    await s.ingestDelta({ agentId: C, baseSequence: 0, bytes: second!.bytes, now: second!.now });
    // The dashboard's next page (no `at`) goes on at sequence 0, as does one asked at 0; sequence 1 is another list.
    const page2 = (await s.getRecordsAt({ agentId: C, limit: 4, cursor: page1.next_cursor! }))!;
    expect(page2).toEqual(rest);
    expect(page2.at).toBe(0);
    expect(page2.items.map((r) => r.record_id)).toContain(id('note-3'));
    expect((await s.getRecordsAt({ agentId: C, at: 0, limit: 4, cursor: page1.next_cursor! }))).toEqual(rest);
    expect(await refusal(() => s.getRecordsAt({ agentId: C, at: 1, limit: 4, cursor: page1.next_cursor! }))).toBe(ANOTHER);
    // The page after it too (a cursor given out at 0 stays at 0), and a first page now answers at 1.
    const page3 = (await s.getRecordsAt({ agentId: C, limit: 2, cursor: (await s.getRecordsAt({ agentId: C, limit: 2, cursor: page1.next_cursor! }))!.next_cursor! }))!;
    expect(page3.at).toBe(0);
    expect([...page1.items, ...page2.items.slice(0, 2), ...page3.items].map((r) => r.record_id)).toEqual((await s.getRecordsAt({ agentId: C, at: 0 }))!.items.map((r) => r.record_id));
    expect((await s.getRecordsAt({ agentId: C, limit: 2 }))!.at).toBe(1);
  });

  it('a feed cursor keeps the window its first page read: 7d asked again a day later pages from the same time', async () => {
    const s = storage();
    const now = new Date(START + 5 * 86_400_000);
    const page1 = await s.getChanges({ since: '7d', now, agentId: A, limit: 2 });
    expect(page1.since).toBe(new Date(now.getTime() - 7 * 86_400_000).toISOString());
    const later = new Date(now.getTime() + 86_400_000);
    const page2 = await s.getChanges({ since: '7d', now: later, agentId: A, limit: 2, cursor: page1.next_cursor! });
    expect(page2.since).toBe(page1.since);
    expect(page2).toEqual(await s.getChanges({ since: '7d', now, agentId: A, limit: 2, cursor: page1.next_cursor! }));
    // Another window, or the time 7d was read as written out, is another list.
    expect(await refusal(() => s.getChanges({ since: '6d', now, agentId: A, limit: 2, cursor: page1.next_cursor! }))).toBe(ANOTHER);
    expect(await refusal(() => s.getChanges({ since: new Date(page1.since), agentId: A, limit: 2, cursor: page1.next_cursor! }))).toBe(ANOTHER);
    expect(await refusal(() => s.getChanges({ since: 'this-week', now, agentId: A, limit: 2, cursor: page1.next_cursor! }))).toBe(ANOTHER);
  });

  it('a cursor pages only the list that gave it out', async () => {
    const s = storage();
    // Records: the same list goes on; another agent, filter or `at` refuses it.
    const records = (await s.getRecordsAt({ agentId: A, limit: 2 }))!.next_cursor!;
    expect((await s.getRecordsAt({ agentId: A, limit: 2, cursor: records }))!.items).toHaveLength(2);
    expect(await refusal(() => s.getRecordsAt({ agentId: B, limit: 2, cursor: records }))).toBe(ANOTHER);
    expect(await refusal(() => s.getRecordsAt({ agentId: A, limit: 2, namespace: 'daily', cursor: records }))).toBe(ANOTHER);
    expect(await refusal(() => s.getRecordsAt({ agentId: A, at: 1, limit: 2, cursor: records }))).toBe(ANOTHER);
    // Without `at` the first page answered at the latest, #2: `at=2` is the same list, and pages it alike.
    expect((await s.getRecordsAt({ agentId: A, at: 2, limit: 2, cursor: records }))).toEqual(await s.getRecordsAt({ agentId: A, limit: 2, cursor: records }));
    // The change feed: agent and op.
    const since = new Date(START - 86_400_000);
    const feed = (await s.getChanges({ since, agentId: A, limit: 2 })).next_cursor!;
    expect((await s.getChanges({ since, agentId: A, limit: 2, cursor: feed })).groups.length).toBeGreaterThan(0);
    expect(await refusal(() => s.getChanges({ since, agentId: B, limit: 2, cursor: feed }))).toBe(ANOTHER);
    expect(await refusal(() => s.getChanges({ since, limit: 2, cursor: feed }))).toBe(ANOTHER);
    expect(await refusal(() => s.getChanges({ since, agentId: A, op: 'update', limit: 2, cursor: feed }))).toBe(ANOTHER);
    // …and `since`: another time is another list (it paged that list's tail); the same time, however written, is not.
    expect(await refusal(() => s.getChanges({ since: new Date(START - 2 * 86_400_000), agentId: A, limit: 2, cursor: feed }))).toBe(ANOTHER);
    expect(await refusal(() => s.getChanges({ since: '30d', agentId: A, limit: 2, cursor: feed }))).toBe(ANOTHER);
    expect((await s.getChanges({ since: since.toISOString(), agentId: A, limit: 2, cursor: feed })).next_cursor)
      .toBe((await s.getChanges({ since, agentId: A, limit: 2, cursor: feed })).next_cursor);
    // A sequence's ops: agent, sequence and op kind.
    const ops = (await s.getSequenceOps({ agentId: A, seq: 0, op: 'create', limit: 2 }))!.next_cursor!;
    expect((await s.getSequenceOps({ agentId: A, seq: 0, op: 'create', limit: 2, cursor: ops }))!.items).toHaveLength(2);
    expect(await refusal(() => s.getSequenceOps({ agentId: B, seq: 0, op: 'create', limit: 2, cursor: ops }))).toBe(ANOTHER);
    expect(await refusal(() => s.getSequenceOps({ agentId: A, seq: 1, op: 'update', limit: 2, cursor: ops }))).toBe(ANOTHER);
    // A lineage: the order.
    const lineage = (await s.getRecordLineage({ agentId: A, recordId: id('plain'), limit: 1 }))!.next_cursor!;
    expect((await s.getRecordLineage({ agentId: A, recordId: id('plain'), limit: 1, cursor: lineage }))!.versions).toHaveLength(1);
    expect(await refusal(() => s.getRecordLineage({ agentId: A, recordId: id('plain'), limit: 1, order: 'oldest', cursor: lineage }))).toBe(ANOTHER);
  });
});
