/**
 * The cases of the storage conformance suite (conformance.test.ts): each runs the same verb with
 * the same arguments on both backends and asserts equal answers — results, and for refusals the
 * same LedgerError code and details. The uploads come from testing/scenario.ts: two agents in two
 * tenants, with moves, edits, deletes, rollover snapshots, record-only deltas and binary files.
 */
import { beforeAll, expect, it } from 'vitest';
import { isLedgerError } from '@/lib/ledger/errors';
import { prng } from '@/lib/core/prng';
import { NS } from '@/lib/core/ids';
import { uuidV5 } from '@/lib/core/uuid';
import type { MemoryRecord } from '@/lib/core/record';
import type { LineageStorage } from './types';
import type { IndexDump } from './testing/dumps';
import { agentHistory, oneRecordDelta, TOKENS, type Upload } from './testing/scenario';

export interface Backend {
  storage: LineageStorage;
  dump(): Promise<IndexDump>;
  /** Empties the live-facet counters and their changes per sequence, and fills them as the backend's migrations do. */
  refillFacets(): Promise<void>;
}
export interface Backends { embedded: Backend; scaleOut: Backend }

export const TENANT = '5e5e5e5e-0000-4000-8000-000000000001';
export const A1 = '7c7c7c7c-1111-4a2b-8c3d-000000000001';
export const A2 = '7c7c7c7c-1111-4a2b-8c3d-000000000002';
const RACE = '7c7c7c7c-1111-4a2b-8c3d-000000000003';
export const EMPTY = '7c7c7c7c-1111-4a2b-8c3d-000000000004';
export const START = Date.parse('2026-11-01T08:00:00Z');

/** A dump without the race agent's rows: its winners may differ between backends; everything else is equal. */
export const withoutRace = (d: IndexDump) => Object.fromEntries(Object.entries(d).map(([t, rows]) => [t, (rows as { agent_id?: string; id?: string }[])
  .filter((r) => r.agent_id !== RACE && !(t === 'agents' && r.id === RACE))]));

export type Outcome<T> = { ok: T } | { error: { code: string; message: string; details: unknown } };

/** A verb's answer or its refusal, in a form two backends can be compared by. */
export async function outcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: await run() };
  } catch (error) {
    if (isLedgerError(error)) return { error: { code: error.code, message: error.message, details: error.details } };
    throw error;
  }
}

/**
 * The suite's ways to ask: `each` asks both backends, `same` asserts their outcomes are equal (and
 * answers the embedded one), `value` unwraps an answer (a refusal fails the test).
 */
export function asking(b: Backends) {
  const each = async <T>(ask: (s: LineageStorage) => Promise<T>): Promise<{ embedded: Outcome<T>; scaleOut: Outcome<T> }> => ({
    embedded: await outcome(() => ask(b.embedded.storage)),
    scaleOut: await outcome(() => ask(b.scaleOut.storage)),
  });
  const same = async <T>(ask: (s: LineageStorage) => Promise<T>): Promise<Outcome<T>> => {
    const { embedded, scaleOut } = await each(ask);
    expect(scaleOut).toEqual(embedded);
    return embedded;
  };
  const value = <T>(o: Outcome<T>): T => {
    if ('error' in o) throw new Error(`expected an answer, got ${o.error.code}: ${o.error.message}`);
    return o.ok;
  };
  return { each, same, value };
}

export function runConformanceCases(b: Backends): void {
  const { each, same, value } = asking(b);

  let uploads: Upload[] = [];
  let latest: Record<string, number> = {};

  beforeAll(async () => {
    const histories = await Promise.all([agentHistory(A1, 1, START, 9), agentHistory(A2, 2, START + 1_800_000, 9)]);
    uploads = histories.flat().sort((x, y) => x.now.getTime() - y.now.getTime() || x.agentId.localeCompare(y.agentId));
  });

  it('agents: registration, duplicates, bad ids and tenant scopes answer the same', async () => {
    const now = new Date(START - 60_000);
    await same((s) => s.registerAgent({ id: A1, name: 'atlas', sourceRuntime: 'openclaw', tenantId: null, now }));
    await same((s) => s.registerAgent({ id: A2.toUpperCase(), name: 'hermes', sourceRuntime: 'openclaw', tenantId: TENANT, now }));
    await same((s) => s.registerAgent({ id: RACE, name: 'race', sourceRuntime: 'openclaw', tenantId: null, now }));
    await same((s) => s.registerAgent({ id: EMPTY, name: 'empty', sourceRuntime: null, tenantId: null, now }));
    expect(value(await same((s) => s.registerAgent({ id: A1, name: 'again', sourceRuntime: null, tenantId: null, now })))).toBe('exists');
    expect(await same((s) => s.registerAgent({ id: 'not-a-uuid', name: 'x', sourceRuntime: null, tenantId: null, now }))).toMatchObject({ error: { code: 'invalid_input' } });
    for (const tenantId of [undefined, null, TENANT, 'nobody']) await same((s) => s.listAgents({ tenantId }));
    await same((s) => s.getAgent({ agentId: A2, tenantId: null }));
    await same((s) => s.getAgent({ agentId: A2.toUpperCase(), tenantId: TENANT }));
  });

  it('ingest: every upload gets the same sequence, entry id, blob key and size, and the ledgers are equal', async () => {
    for (const u of uploads) {
      const tenantId = u.agentId === A2 ? TENANT : null;
      const answer = await same((s) => (u.kind === 'snapshot'
        ? s.ingestSnapshot({ agentId: u.agentId, bytes: u.bytes, now: u.now, tenantId })
        : s.ingestDelta({ agentId: u.agentId, baseSequence: u.baseSequence, bytes: u.bytes, now: u.now, tenantId })));
      latest[u.agentId] = value(answer).sequence;
    }
    for (const agentId of [A1, A2]) await same((s) => s.listEntries({ agentId }));
    await same((s) => s.listEntries({ agentId: A1, sinceSeq: 2, upToSeq: 6, kind: 'delta' }));
    expect(await b.scaleOut.dump()).toEqual(await b.embedded.dump());
  });

  it('refusals: stale base, no snapshot, unknown agent, wrong tenant, bad archive, agent mismatch', async () => {
    const stale = uploads.find((u) => u.agentId === A1 && u.kind === 'delta')!;
    expect(await same((s) => s.ingestDelta({ agentId: A1, baseSequence: stale.baseSequence, bytes: stale.bytes, now: stale.now }))).toMatchObject({ error: { code: 'stale_sequence' } });
    const bytes = await oneRecordDelta(EMPTY, 0, 'first words', new Date(START));
    expect(await same((s) => s.ingestDelta({ agentId: EMPTY, baseSequence: 0, bytes, now: new Date(START) }))).toMatchObject({ error: { code: 'no_snapshot' } });
    expect(await same((s) => s.ingestDelta({ agentId: '7c7c7c7c-1111-4a2b-8c3d-0000000000ff', baseSequence: 0, bytes, now: new Date(START) }))).toMatchObject({ error: { code: 'agent_not_found' } });
    expect(await same((s) => s.ingestSnapshot({ agentId: A2, bytes: uploads[0]!.bytes, now: new Date(START), tenantId: null }))).toMatchObject({ error: { code: 'agent_not_found' } });
    expect(await same((s) => s.ingestSnapshot({ agentId: A1, bytes: new TextEncoder().encode('not a zip'), now: new Date(START) }))).toMatchObject({ error: { code: 'bad_archive' } });
    const a2Snapshot = uploads.find((u) => u.agentId === A2 && u.kind === 'snapshot')!;
    expect(await same((s) => s.ingestSnapshot({ agentId: A1, bytes: a2Snapshot.bytes, now: new Date(START) }))).toMatchObject({ error: { code: 'agent_mismatch' } });
    expect(await same((s) => s.ingestDelta({ agentId: A1, baseSequence: -1, bytes, now: new Date(START) }))).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await b.scaleOut.dump()).toEqual(await b.embedded.dump());
  });

  it('a NUL character (U+0000) in a memory or an agent is refused the same on both backends, naming where, and nothing changes', async () => {
    const before = { embedded: await b.embedded.dump(), scaleOut: await b.scaleOut.dump() };
    const now = new Date(START + 90 * 86_400_000);
    // Each refusal ends saying where the record came from (its id, its file): see ingest-checks.ts.
    const variants: [string, (r: MemoryRecord) => MemoryRecord, string, string][] = [
      ['before\u0000after', (r) => r, 'content', 'memory/race.md'],
      ['nul tag', (r) => ({ ...r, tags: ['infra', 'ti\u0000er'] }), 'tags[1]', 'memory/race.md'],
      ['nul file', (r) => ({ ...r, source: { ...r.source, origin_file: 'memory/a\u0000.md' } }), 'source.origin_file', 'memory/a\\u0000.md'],
      ['nul key', (r) => ({ ...r, metadata: { 'k\u0000': 1 } } as MemoryRecord), 'metadata.k\\u0000', 'memory/race.md'],
    ];
    for (const [content, edit, where, file] of variants) {
      const bytes = await oneRecordDelta(A1, latest[A1]!, content, now, edit);
      const refused = await same((s) => s.ingestDelta({ agentId: A1, baseSequence: latest[A1]!, bytes, now }));
      const id = uuidV5(NS.alf, `race:${content}`);
      expect(refused).toEqual({ error: { code: 'bad_archive', details: {},
        message: `refused: memory/delta.jsonl entry 1: ${where} holds a NUL character (U+0000), which a memory may not contain (the record's id ${id}, file "${file}")` } });
    }
    const nulName = await same((s) => s.registerAgent({ id: '7c7c7c7c-1111-4a2b-8c3d-0000000000aa', name: 'a\u0000b', sourceRuntime: null, tenantId: null, now }));
    expect(nulName).toMatchObject({ error: { code: 'invalid_input', message: 'agent name holds a NUL character (U+0000)' } });
    expect({ embedded: await b.embedded.dump(), scaleOut: await b.scaleOut.dump() }).toEqual(before);
  });

  it('a record id in another form than lowercase hyphenated (upper case, urn:uuid:) is refused the same on both backends, naming the entry, and nothing changes', async () => {
    const before = { embedded: await b.embedded.dump(), scaleOut: await b.scaleOut.dump() };
    const now = new Date(START + 90 * 86_400_000);
    const content = 'an id in another form';
    const id = uuidV5(NS.alf, `race:${content}`);
    expect(id.toUpperCase()).not.toBe(id);
    for (const form of [id.toUpperCase(), `urn:uuid:${id}`]) {
      const bytes = await oneRecordDelta(A1, latest[A1]!, content, now, (r) => ({ ...r, id: form }));
      const refused = await same((s) => s.ingestDelta({ agentId: A1, baseSequence: latest[A1]!, bytes, now }));
      expect(refused).toMatchObject({ error: { code: 'bad_archive',
        message: expect.stringContaining(`refused: memory/delta.jsonl entry 1: record id "${form}" is not in the lowercase hyphenated form 8-4-4-4-12 (CONTRACT §4.2)`) } });
    }
    expect({ embedded: await b.embedded.dump(), scaleOut: await b.scaleOut.dump() }).toEqual(before);
  });

  it('records live at every sequence, with facets, filters and cursor pages', async () => {
    for (const agentId of [A1, A2]) {
      for (let at = 0; at <= latest[agentId]!; at++) await same((s) => s.getRecordsAt({ agentId, at }));
      const tenantId = agentId === A2 ? TENANT : null;
      for (const filter of [{ memory_type: 'semantic' }, { namespace: 'curated' }, { file: 'memory/semantic/infra.md' }, { tag: 'infra' }, { tier: 'hot' }, { status: 'active' }, { tag: 'nope' }]) {
        await same((s) => s.getRecordsAt({ agentId, tenantId, ...filter }));
        // At earlier sequences too: there the records live in one file are worked out in that file alone.
        for (const at of [0, Math.floor(latest[agentId]! / 2)]) await same((s) => s.getRecordsAt({ agentId, tenantId, at, ...filter }));
      }
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = value(await same((s) => s.getRecordsAt({ agentId, limit: 2, ...(cursor ? { cursor } : {}) })));
        cursor = page?.next_cursor ?? undefined;
        pages++;
      } while (cursor);
      expect(pages).toBeGreaterThan(1);
    }
    await same((s) => s.getRecordsAt({ agentId: A2, tenantId: null }));
    await same((s) => s.getRecordsAt({ agentId: EMPTY }));
    expect(await same((s) => s.getRecordsAt({ agentId: A1, at: 999 }))).toMatchObject({ error: { code: 'sequence_out_of_range' } });
    expect(await same((s) => s.getRecordsAt({ agentId: A1, cursor: '!!' }))).toMatchObject({ error: { code: 'invalid_input' } });
  });

  it('the timeline: sequence pages, every sequence in detail, the sequence at a time, agents with their stats', async () => {
    for (const agentId of [A1, A2]) {
      let before: number | undefined;
      let pages = 0;
      do {
        const page = value(await same((s) => s.getSequences({ agentId, limit: 3, ...(before === undefined ? {} : { before }) })));
        before = page?.next_before ?? undefined;
        pages++;
      } while (before !== undefined);
      expect(pages).toBeGreaterThan(1);
      await same((s) => s.getSequences({ agentId }));
      for (let seq = 0; seq <= latest[agentId]! + 1; seq++) await same((s) => s.getSequence({ agentId, seq }));
      for (const hours of [-1, 0, 2.5, 5, 100]) await same((s) => s.sequenceAt({ agentId, time: new Date(START + hours * 3_600_000) }));
    }
    const detail = value(await same((s) => s.getSequence({ agentId: A1, seq: 1 })))!;
    expect(detail.ops.length).toBeGreaterThan(0);
    await same((s) => s.getSequences({ agentId: A2, tenantId: null }));
    // Sequences far past int4 (a URL can carry any integer): the same empty answers, not an engine error.
    await same((s) => s.getSequences({ agentId: A1, before: 2 ** 40 }));
    await same((s) => s.getSequence({ agentId: A1, seq: 2 ** 40 }));
    await same((s) => s.listEntries({ agentId: A1, sinceSeq: -(2 ** 40), upToSeq: 2 ** 40 }));
    expect(await same((s) => s.getSequences({ agentId: A1, limit: 0 }))).toMatchObject({ error: { code: 'invalid_input' } });
    for (const now of [new Date(START + 86_400_000), new Date(START + 30 * 86_400_000)]) {
      for (const tenantId of [undefined, null, TENANT]) await same((s) => s.listAgentsWithStats({ tenantId, now }));
    }
    const stats = value(await same((s) => s.listAgentsWithStats({ now: new Date(START + 86_400_000) })));
    expect(stats.some((a) => a.activity.some((d) => d.moves > 0))).toBe(true);
  });

  it('a NUL character (U+0000) in what a caller asks for finds nothing on both backends, never an engine error', async () => {
    const nul = 'a\u0000b';
    await same((s) => s.getAgent({ agentId: nul }));
    await same((s) => s.listAgents({ tenantId: nul }));
    await same((s) => s.getRecordsAt({ agentId: A1, file: nul }));
    await same((s) => s.getRecordsAt({ agentId: A1, tag: nul }));
    await same((s) => s.getRecordsAt({ agentId: `${A1}\u0000` }));
    await same((s) => s.getRecordLineage({ agentId: A1, recordId: nul }));
    await same(async (s) => (await s.getWorkspaceFile({ agentId: A1, seq: 0, path: nul })) === null);
    await same((s) => s.getChanges({ since: new Date(0), agentId: nul }));
    await same((s) => s.search({ q: 'redis', agentId: nul }));
    await same((s) => s.search({ q: 'redis', tenantId: nul }));
    await same((s) => s.keyIdentityById(nul));
    await same((s) => s.getSequences({ agentId: nul }));
  });

  it('lineage of every record ever seen, moves included', async () => {
    const records = (await b.embedded.dump()).records as { agent_id: string; record_id: string }[];
    let moved = 0;
    for (const r of records) {
      const lineage = value(await same((s) => s.getRecordLineage({ agentId: r.agent_id, recordId: r.record_id.toUpperCase() })));
      if (lineage && lineage.chain.length > 1) moved++;
    }
    expect(moved).toBeGreaterThan(0);
    await same((s) => s.getRecordLineage({ agentId: A1, recordId: '00000000-0000-4000-8000-000000000000' }));
    await same((s) => s.getRecordLineage({ agentId: A2, recordId: records.find((r) => r.agent_id === A2)!.record_id, tenantId: null }));
  });

  it('changes: all, per agent, per op, per tenant, since a time, limited', async () => {
    const since = new Date(START - 86_400_000);
    const all = value(await same((s) => s.getChanges({ since })));
    expect(all.groups.flatMap((g) => g.changes).some((c) => c.op === 'move')).toBe(true);
    expect(all.groups.flatMap((g) => g.changes).some((c) => c.diff !== undefined)).toBe(true);
    for (const op of ['create', 'update', 'delete', 'move'] as const) await same((s) => s.getChanges({ since, op }));
    await same((s) => s.getChanges({ since, agentId: A2.toUpperCase() }));
    for (const tenantId of [null, TENANT]) await same((s) => s.getChanges({ since, tenantId }));
    await same((s) => s.getChanges({ since: new Date(START + 5 * 3_600_000) }));
    await same((s) => s.getChanges({ since, limit: 3 }));
    expect(await same((s) => s.getChanges({ since, op: 'rename' as never }))).toMatchObject({ error: { code: 'invalid_input' } });
  });

  /** Walks a keyset-paged list page by page on both backends (each page, its next_cursor included, equal); the pages. */
  const walk = async <T extends { next_cursor: string | null }>(ask: (s: LineageStorage, cursor: string | undefined) => Promise<T | null>): Promise<T[]> => {
    const pages: T[] = [];
    let cursor: string | undefined;
    do {
      const page = value(await same((s) => ask(s, cursor)));
      if (!page) break;
      pages.push(page);
      cursor = page.next_cursor ?? undefined;
      expect(pages.length).toBeLessThan(500);
    } while (cursor);
    return pages;
  };

  it('paging: the change feeds (fleet, per agent, per op, per tenant) walked page by page', async () => {
    const since = new Date(START - 86_400_000);
    const flat = (r: { groups: { agent_id: string; changes: unknown[] }[] }) => r.groups.flatMap((g) => g.changes.map((c) => ({ agent_id: g.agent_id, c })));
    let walked = 0;
    for (const filter of [{}, { agentId: A1 }, { agentId: A2.toUpperCase() }, { agentId: A1, op: 'update' as const }, { op: 'move' as const }, { tenantId: TENANT }, { tenantId: null, agentId: A2 }]) {
      const whole = value(await same((s) => s.getChanges({ since, limit: 1000, ...filter })));
      expect(whole.next_cursor).toBeNull();
      const pages = await walk((s, cursor) => s.getChanges({ since, limit: 2, ...filter, ...(cursor ? { cursor } : {}) }));
      // The pages together hold exactly the whole feed's changes.
      const key = (j: unknown) => JSON.stringify(j);
      expect(pages.flatMap(flat).map(key).sort()).toEqual(flat(whole).map(key).sort());
      walked += pages.length;
    }
    expect(walked).toBeGreaterThan(20);
    expect(await same((s) => s.getChanges({ since, cursor: 'bm90LWEtY3Vyc29y' }))).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await same((s) => s.getChanges({ since, limit: 0 }))).toMatchObject({ error: { code: 'invalid_input' } });
  });

  it('paging: each memory\'s lineage, newest and oldest first, page by page (with `before`)', async () => {
    const records = (await b.embedded.dump()).records as { agent_id: string; record_id: string }[];
    let multi = 0;
    for (const r of records) {
      const whole = value(await same((s) => s.getRecordLineage({ agentId: r.agent_id, recordId: r.record_id })))!;
      expect(whole.version_count).toBe(whole.versions.length);
      for (const order of ['newest', 'oldest'] as const) {
        const pages = await walk((s, cursor) => s.getRecordLineage({ agentId: r.agent_id, recordId: r.record_id, limit: 2, order, ...(cursor ? { cursor } : {}) }));
        const versions = pages.flatMap((page) => page.versions);
        expect(versions).toEqual(order === 'oldest' ? whole.versions : [...whole.versions].reverse());
        if (pages.length > 1) multi++;
      }
    }
    expect(multi).toBeGreaterThan(4);
    const [x, y] = [records.find((r) => r.agent_id === A1)!, records.filter((r) => r.agent_id === A1).at(-1)!];
    const page = value(await same((s) => s.getRecordLineage({ agentId: A1, recordId: x.record_id, limit: 1 })))!;
    if (page.next_cursor) {
      // A lineage cursor of another memory, and one of nothing, are refused the same way.
      expect(await same((s) => s.getRecordLineage({ agentId: A1, recordId: y.record_id, limit: 1, cursor: page.next_cursor! }))).toMatchObject({ error: { code: 'invalid_input' } });
    }
    expect(await same((s) => s.getRecordLineage({ agentId: A1, recordId: x.record_id, cursor: 'W10' }))).toMatchObject({ error: { code: 'invalid_input' } });
  });

  it('paging: every sequence\'s ops, one kind at a time, page by page', async () => {
    let walked = 0;
    for (const agentId of [A1, A2]) {
      for (let seq = 0; seq <= latest[agentId]!; seq++) {
        const whole = value(await same((s) => s.getSequence({ agentId, seq })))!;
        const first = value(await same((s) => s.getSequence({ agentId, seq, opsLimit: 1 })))!;
        for (const op of ['create', 'update', 'delete', 'move'] as const) {
          const pages = await walk((s, cursor) => s.getSequenceOps({ agentId, seq, op, limit: 1, ...(cursor ? { cursor } : {}) }));
          expect(pages.flatMap((page) => page.items)).toEqual(whole.ops.filter((o) => o.op === op));
          expect(pages.flatMap((page) => page.items).length).toBe(first.op_counts[op]);
          expect(first.op_cursors[op]).toBe(pages[0]!.next_cursor);
          if (first.op_cursors[op]) {
            await walk((s, cursor) => s.getSequenceOps({ agentId, seq, op, limit: 2, cursor: cursor ?? first.op_cursors[op]! }));
          }
          walked += pages.length;
        }
      }
    }
    expect(walked).toBeGreaterThan(40);
    await same((s) => s.getSequenceOps({ agentId: A1, seq: 2 ** 40, op: 'create' }));
    await same((s) => s.getSequenceOps({ agentId: A2, seq: 0, op: 'create', tenantId: null }));
    await same((s) => s.getSequenceOps({ agentId: 'a\u0000b', seq: 0, op: 'create' }));
    expect(await same((s) => s.getSequenceOps({ agentId: A1, seq: 0, op: 'rename' as never }))).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await same((s) => s.getSequenceOps({ agentId: A1, seq: 0, op: 'create', cursor: '!!' }))).toMatchObject({ error: { code: 'invalid_input' } });
  });

  it('paging: every sequence\'s raw files, page by page, each page counting its own files\' ops', async () => {
    let multi = 0;
    for (const agentId of [A1, A2]) {
      for (let seq = 0; seq <= latest[agentId]!; seq++) {
        const whole = value(await same((s) => s.getSequence({ agentId, seq, opsLimit: 1 })))!;
        const first = value(await same((s) => s.getSequence({ agentId, seq, opsLimit: 1, rawLimit: 1 })))!;
        expect(first.raw).toEqual(whole.raw.slice(0, 1));
        expect(first.raw_count).toBe(whole.raw.length);
        expect(whole.raw_cursor).toBeNull();
        const pages = await walk((s, cursor) => s.getSequenceRaw({ agentId, seq, limit: 1, opsLimit: 1, ...(cursor ? { cursor } : {}) }));
        expect(pages.flatMap((page) => page.items)).toEqual(whole.raw);
        expect(first.raw_cursor).toBe(pages[0]!.next_cursor);
        if (first.raw_cursor) {
          const rest = await walk((s, cursor) => s.getSequenceRaw({ agentId, seq, limit: 2, opsLimit: 1, cursor: cursor ?? first.raw_cursor! }));
          expect(rest.flatMap((page) => page.items)).toEqual(whole.raw.slice(1));
          multi++;
        }
      }
    }
    expect(multi).toBeGreaterThan(4);
    await same((s) => s.getSequenceRaw({ agentId: A1, seq: 2 ** 40 }));
    await same((s) => s.getSequenceRaw({ agentId: A2, seq: 0, tenantId: null }));
    await same((s) => s.getSequenceRaw({ agentId: 'a\u0000b', seq: 0 }));
    for (const cursor of ['!!', 'W10', Buffer.from(JSON.stringify(['delta', 'a\u0000b'])).toString('base64url')]) {
      expect(await same((s) => s.getSequenceRaw({ agentId: A1, seq: 0, cursor }))).toMatchObject({ error: { code: 'invalid_input' } });
    }
    expect(await same((s) => s.getSequence({ agentId: A1, seq: 0, rawLimit: 0 }))).toMatchObject({ error: { code: 'invalid_input' } });
  });

  it('paging: Memories with q and in each sort, at the latest and earlier sequences, page by page', async () => {
    let walked = 0;
    const hits = new Map<string, number>();
    for (const agentId of [A1, A2]) {
      for (const at of [undefined, 1, Math.floor(latest[agentId]! / 2), latest[agentId]! - 1]) {
        for (const sort of ['file', 'heading', 'changed'] as const) {
          for (const q of [undefined, 'redis', 'REDIS', 'MÜLLER', 'müller', 'ller', 'semantic', 'İ', 'σ', '']) {
            const ask = { agentId, sort, ...(at === undefined ? {} : { at }), ...(q === undefined ? {} : { q }) };
            const whole = value(await same((s) => s.getRecordsAt({ ...ask, limit: 1000 })))!;
            const pages = await walk((s, cursor) => s.getRecordsAt({ ...ask, limit: 2, ...(cursor ? { cursor } : {}) }));
            expect(pages.flatMap((page) => page.items)).toEqual(whole.items);
            expect(pages.slice(1).every((page) => page.total === null && page.facets === null)).toBe(true);
            hits.set(String(q), (hits.get(String(q)) ?? 0) + whole.items.length);
            walked += pages.length;
          }
        }
      }
    }
    expect(walked).toBeGreaterThan(100);
    // The filters select: ASCII case folds (REDIS = redis), nothing else does (MÜLLER ≠ müller, as SQLite's lower()).
    expect(hits.get('REDIS')).toBe(hits.get('redis'));
    expect(hits.get('redis')).toBeGreaterThan(0);
    expect(hits.get('redis')).toBeLessThan(hits.get('undefined')!);
    // Text typed as stored is found: 'MÜLLER' finds the memories holding "MÜLLER", 'müller' those holding "müller"
    // (before, 'MÜLLER' was lowered whole to "müller", and a memory holding only "MÜLLER" was found by "ller" alone).
    expect(hits.get('MÜLLER')).toBeGreaterThan(0);
    expect(hits.get('müller')).toBeGreaterThan(0);
    expect(hits.get('ller')).toBeGreaterThan(hits.get('MÜLLER')!);
    expect(hits.get('')).toBe(hits.get('undefined'));
    const page = value(await same((s) => s.getRecordsAt({ agentId: A1, sort: 'file', limit: 1 })))!;
    expect(page.next_cursor).not.toBeNull();
    expect(await same((s) => s.getRecordsAt({ agentId: A1, sort: 'changed', cursor: page.next_cursor! }))).toMatchObject({ error: { code: 'invalid_input' } });
    expect(await same((s) => s.getRecordsAt({ agentId: A1, sort: 'size' as never }))).toMatchObject({ error: { code: 'invalid_input' } });
    await same((s) => s.getRecordsAt({ agentId: A1, q: 'a\u0000b' }));
  });

  it('the workspace at every sequence: tree, every file, and the download files page by page', async () => {
    const hex = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('hex') : null);
    let reconstructed = 0;
    for (const agentId of [A1, A2]) {
      for (let seq = 0; seq <= latest[agentId]!; seq++) {
        const tree = value(await same((s) => s.getWorkspaceTree({ agentId, seq })))!;
        reconstructed += tree.files.filter((f) => f.reconstructed).length;
        for (const file of tree.files) {
          const bytes = await each(async (s) => hex(await s.getWorkspaceFile({ agentId, seq, path: file.path })));
          expect(bytes.scaleOut).toEqual(bytes.embedded);
          expect(value(bytes.embedded)).not.toBeNull();
        }
        await same(async (s) => hex(await s.getWorkspaceFile({ agentId, seq, path: 'no/such/file.md' })));
        const files = await each(async (s) => {
          const pages = await s.downloadFiles({ agentId, seq, pageSize: 2 });
          const out: [string, string][] = [];
          if (pages) for await (const page of pages) for (const f of page) out.push([f.name, f.data.toString('hex')]);
          return out;
        });
        expect(files.scaleOut).toEqual(files.embedded);
        expect(value(files.embedded).map(([name]) => name)).toEqual(tree.files.map((f) => f.path));
      }
    }
    expect(reconstructed).toBeGreaterThan(0);
    await same((s) => s.getWorkspaceTree({ agentId: A2, seq: 0, tenantId: null }));
    expect(await same((s) => s.getWorkspaceTree({ agentId: A1, seq: 99 }))).toMatchObject({ error: { code: 'sequence_out_of_range' } });
    expect(await same(async (s) => (await s.downloadFiles({ agentId: A1, seq: -1 })) === null)).toMatchObject({ error: { code: 'sequence_out_of_range' } });
  });

  it('search: whole tokens, several words, phrases, prefixes, Unicode case folding, status and suggestions', async () => {
    const queries = ['redis', 'Redis', 'REDIS', 'redis*', 'redisson', '(redis)', '"(redis)"', '10.20.0.5', '10.20.0', '10.20*', 'evt-00012', 'evt*',
      'müller', 'MÜLLER', 'MULLER', 'straße', 'STRASSE', 'STRAẞE', 'οδος', 'ΟΔΟΣ', 'σοφος', 'σοφός', 'kelvin', 'KELVIN', '\u212Aelvin', 'i', 'İ', 'I',
      'ab', '"ab"', 'x1', 'gate*', 'gateway fanless', 'fanless gateway', '"lan-gateway"', 'lan-gateway', '"redis redis"', '"Redis  REDIS"', 'NEAR', 'OR',
      '7.2', 'redsi', 'gatewya', 'fanles', 'nothing-here-at-all', 'müller redis*', '"10.20.0.5 redis"',
      'café', 'cafe\u0301', 'CAFÉ', 'cafe', 'caf*', '"café redis"', 'é', 'e\u0301', 'e'];
    let found = 0;
    let gone = 0;
    for (const q of queries) {
      const result = value(await same((s) => s.search({ q })));
      if (result.total > 0) found++;
      if (result.total > 0 && !result.status.present) gone++;
      await same((s) => s.search({ q, agentId: A2 }));
      await same((s) => s.search({ q, tenantId: TENANT, limit: 2, offset: 1 }));
    }
    expect(found).toBeGreaterThan(20);
    expect(gone).toBeGreaterThan(0);
    const suggested = value(await same((s) => s.search({ q: 'gatewya' })));
    expect(suggested.suggestions.length).toBeGreaterThan(0);
    for (const q of ['', '   ', 'a\u0000b', 'x'.repeat(501)]) expect(await same((s) => s.search({ q }))).toMatchObject({ error: { code: 'invalid_input' } });
  });

  it('search: 60 seeded random queries from the stored contents answer the same', async () => {
    const rand = prng(21);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const flip = (w: string) => [...w].map((c) => (rand() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
    for (let i = 0; i < 60; i++) {
      const words = Array.from({ length: 1 + Math.floor(rand() * 2) }, () => flip(pick(TOKENS)));
      const roll = rand();
      const q = roll < 0.3 ? `"${words.join(' ')}"` : roll < 0.5 ? `${words[0]!.slice(0, 3)}*` : words.join(' ');
      await same((s) => s.search({ q }));
    }
  });

  it('the race: 6 deltas on one base at once, on each backend: exactly one accepted, the others stale with the winner\'s sequence', async () => {
    for (const backend of [b.embedded, b.scaleOut]) {
      const s = backend.storage;
      const snapshot = (await agentHistory(RACE, 3, START, 0))[0]!;
      await s.ingestSnapshot({ agentId: RACE, bytes: snapshot.bytes, now: snapshot.now });
      for (let round = 0; round < 3; round++) {
        const now = new Date(START + (round + 1) * 60_000);
        const uploadsOfRound = await Promise.all(Array.from({ length: 6 }, (_, i) => oneRecordDelta(RACE, round, `round ${round} writer ${i}`, now)));
        const results = await Promise.allSettled(uploadsOfRound.map((bytes) => s.ingestDelta({ agentId: RACE, baseSequence: round, bytes, now })));
        expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ sequence: number }>).value.sequence)).toEqual([round + 1]);
        for (const r of results) {
          if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'stale_sequence', details: { latest: round + 1 } });
        }
      }
      expect((await s.listEntries({ agentId: RACE })).map((e) => [e.seq, e.kind])).toEqual([[0, 'snapshot'], [1, 'delta'], [2, 'delta'], [3, 'delta']]);
    }
  });

  it('rebuild == incremental on each backend, and the rebuilt indexes are equal', async () => {
    const before = { embedded: await b.embedded.dump(), scaleOut: await b.scaleOut.dump() };
    const summaries = await each((s) => s.rebuildIndex());
    expect(value(summaries.scaleOut).entries).toBe(value(summaries.embedded).entries);
    expect(await b.embedded.dump()).toEqual(before.embedded);
    expect(await b.scaleOut.dump()).toEqual(before.scaleOut);
    const objects = (d: IndexDump) => ({ ...withoutRace(d), raw_objects: [] });
    expect(objects(await b.scaleOut.dump())).toEqual(objects(await b.embedded.dump()));
    await same((s) => s.search({ q: 'redis' }));
  });

  it('the live-facet counters and their changes per sequence: what each backend\'s migrations fill from the versions is what its fold kept', async () => {
    for (const backend of [b.embedded, b.scaleOut]) {
      const kept = await backend.dump();
      expect(kept.record_facets!.length).toBeGreaterThan(0);
      expect(new Set(kept.record_facet_changes!.map((r) => (r as { seq: number }).seq)).size).toBeGreaterThan(1);
      await backend.refillFacets();
      expect(await backend.dump()).toEqual(kept);
    }
  });

  it('API keys: create, identify, list, count, revoke', async () => {
    for (const backend of [b.embedded, b.scaleOut]) {
      const s = backend.storage;
      const now = new Date(START);
      const admin = await s.createApiKey({ name: ' ops ', now, admin: true });
      const plain = await s.createApiKey({ now: new Date(START + 1000) });
      expect([admin.name, admin.admin, plain.name, plain.admin]).toEqual(['ops', true, 'default', false]);
      expect(await s.identifyKey({ key: admin.key })).toEqual({ id: admin.id, admin: true });
      expect(await s.identifyKey({ key: plain.key })).toEqual({ id: plain.id, admin: false });
      expect(await s.identifyKey({ key: `${plain.key}x` })).toBeNull();
      expect(await s.keyIdentityById(plain.id)).toEqual({ id: plain.id, admin: false });
      expect((await s.listApiKeys()).map((k) => [k.id, k.name, k.created_at, k.admin])).toEqual([
        [admin.id, 'ops', now.toISOString(), true], [plain.id, 'default', new Date(START + 1000).toISOString(), false]]);
      expect(await s.countApiKeys()).toBe(2);
      expect(await s.revokeApiKey({ id: plain.id })).toBe(true);
      expect(await s.revokeApiKey({ id: plain.id })).toBe(false);
      expect(await s.identifyKey({ key: plain.key })).toBeNull();
      expect(await s.keyIdentityById(plain.id)).toBeNull();
      expect(await s.countApiKeys()).toBe(1);
    }
  });

  it('sessions: one ended by sign-out is refused until its expiry, then forgotten; the key\'s others and a revoked key\'s are as before', async () => {
    for (const backend of [b.embedded, b.scaleOut]) {
      const s = backend.storage;
      const key = await s.createApiKey({ name: 'sessions', now: new Date(START) });
      const [one, two, old] = ['0b5c7d1e-1111-4222-8333-000000000001', '0b5c7d1e-1111-4222-8333-000000000002', '0b5c7d1e-1111-4222-8333-000000000003'];
      const at = Math.floor(START / 1000);
      expect(await s.sessionKeyIdentity({ keyId: key.id, sessionId: one })).toEqual({ id: key.id, admin: false });
      await s.endSession({ sessionId: old, expiresAt: at + 10, now: new Date(START) });
      await s.endSession({ sessionId: one, expiresAt: at + 1000, now: new Date(START) });
      await s.endSession({ sessionId: one, expiresAt: at + 1000, now: new Date(START) }); // twice: no error
      expect(await s.sessionKeyIdentity({ keyId: key.id, sessionId: one })).toBeNull();
      expect(await s.sessionKeyIdentity({ keyId: key.id, sessionId: old })).toBeNull();
      expect(await s.sessionKeyIdentity({ keyId: key.id, sessionId: two })).toEqual({ id: key.id, admin: false });
      // A later sign-out forgets the ended sessions past their expiry (their cookies have expired anyway).
      await s.endSession({ sessionId: two, expiresAt: at + 1000, now: new Date(START + 20_000) });
      expect(await s.sessionKeyIdentity({ keyId: key.id, sessionId: old })).toEqual({ id: key.id, admin: false });
      expect(await s.sessionKeyIdentity({ keyId: key.id, sessionId: one })).toBeNull();
      expect(await s.revokeApiKey({ id: key.id })).toBe(true);
      expect(await s.sessionKeyIdentity({ keyId: key.id, sessionId: '0b5c7d1e-1111-4222-8333-000000000004' })).toBeNull();
    }
  });

  it('pending uploads: create, bytes, confirm, remove, per agent, sweep', async () => {
    const answers = await each(async (s) => {
      const u = s.uploads;
      const first = await u.create({ agentId: A1, tenantId: 'local', kind: 'delta', baseSequence: 3, expiresAt: new Date(START + 60_000).toISOString() });
      const second = await u.create({ agentId: A1, tenantId: 'local', kind: 'snapshot', baseSequence: null, expiresAt: new Date(START + 120_000).toISOString() });
      const third = await u.create({ agentId: A2, tenantId: TENANT, kind: 'snapshot', baseSequence: null, expiresAt: new Date(START).toISOString() });
      const noBytes = await u.readBytes(first.id);
      await u.putBytes(first.id, new TextEncoder().encode('first bytes'));
      await u.putBytes(first.id, new TextEncoder().encode('replaced bytes'));
      const bytes = new TextDecoder().decode((await u.readBytes(first.id)) ?? new Uint8Array());
      await u.markConfirmed(first, { status: 201, body: { sequence: 4 } });
      const confirmed = await u.get(first.id);
      const bytesAfter = await u.readBytes(first.id);
      const strip = (x: { id: string } | null) => (x ? { ...x, id: typeof x.id } : null);
      const got = [strip(await u.get(second.id)), await u.get('not-an-id'), await u.get('00000000-0000-4000-8000-000000000000')];
      await u.sweep(new Date(START + 3_600_000 + 30_000));
      const afterSweep = [await u.get(first.id) !== null, await u.get(second.id) !== null, await u.get(third.id) !== null];
      const removed = await u.removeAgent(A1);
      await u.remove(third.id);
      return { noBytes, bytes, confirmed: strip(confirmed), bytesAfter, got, afterSweep, removed, gone: [await u.get(first.id), await u.get(second.id)] };
    });
    expect(answers.scaleOut).toEqual(answers.embedded);
    expect(value(answers.embedded)).toMatchObject({ bytes: 'replaced bytes', confirmed: { confirmed: { status: 201, body: { sequence: 4 } } }, afterSweep: [true, true, false], removed: 2 });
  });

  it('pending uploads: bytes over the confirm\'s limit are refused payload_too_large (a 413, as a body over its limit), with their size, alike', async () => {
    const answers = await each(async (s) => {
      const u = s.uploads;
      const upload = await u.create({ agentId: A1, tenantId: 'local', kind: 'snapshot', baseSequence: null, expiresAt: new Date(START + 60_000).toISOString() });
      await u.putBytes(upload.id, new Uint8Array(50));
      const refused = await outcome(() => u.readBytes(upload.id, { maxBytes: 40 }));
      const atTheLimit = (await u.readBytes(upload.id, { maxBytes: 50 }))?.byteLength;
      await u.remove(upload.id);
      return { refused: JSON.stringify(refused).replaceAll(upload.id, 'ID'), atTheLimit };
    });
    expect(answers.scaleOut).toEqual(answers.embedded);
    expect(value(answers.embedded)).toEqual({
      refused: JSON.stringify({ error: { code: 'payload_too_large', message: 'upload ID holds 50 bytes, more than the limit 40', details: {} } }), atTheLimit: 50,
    });
  });
}

/**
 * Run after every other case of the file: the hand-over leaves agents (and a deleted id) held by keys
 * whose ids are random, so each backend's differ, and the later cases that compare every agent, and
 * every deleted one, across the backends would see them differ (they did: tenant ids in "deleting an
 * agent" and "the synced histories").
 */
export function runKeyHandOverCases(b: Backends): void {
  it('API keys: a hand-over gives a tenant\'s agents and deleted ids to another key; a rotation issues a new key holding them and revokes the old', async () => {
    for (const backend of [b.embedded, b.scaleOut]) {
      const s = backend.storage;
      const now = new Date(START);
      const [from, to, other] = [await s.createApiKey({ name: 'from', now }), await s.createApiKey({ name: 'to', now }), await s.createApiKey({ name: 'other', now })];
      const [a1, a2, gone, others] = ['1c000000-0000-4000-8000-000000000001', '1c000000-0000-4000-8000-000000000002', '1c000000-0000-4000-8000-000000000003', '1c000000-0000-4000-8000-000000000004'];
      for (const id of [a2, a1, gone]) await s.registerAgent({ id, name: 'n', sourceRuntime: 'openclaw', tenantId: from.id, now });
      await s.registerAgent({ id: others, name: 'n', sourceRuntime: 'openclaw', tenantId: other.id, now });
      await s.deleteAgent({ agentId: gone, tenantId: from.id, now });
      const missing = '1c000000-0000-4000-8000-0000000000ff';
      expect(await s.handOverAgents({ from: from.id, to: missing, revoke: true })).toEqual({ ok: false, reason: 'target_not_found' });
      expect(await s.handOverAgents({ from: missing, to: to.id, revoke: true })).toEqual({ ok: false, reason: 'key_not_found' });
      expect(await s.keyIdentityById(from.id)).toEqual({ id: from.id, admin: false });
      expect(await s.handOverAgents({ from: from.id, to: to.id, revoke: true })).toEqual({ ok: true, agents: [a1, a2] });
      expect(await s.keyIdentityById(from.id)).toBeNull();
      expect((await s.listAgents({ tenantId: to.id })).map((r) => r.id).sort()).toEqual([a1, a2]);
      expect((await s.listAgents({ tenantId: other.id })).map((r) => r.id)).toEqual([others]);
      // The deleted id went with them: the new owner registers it again, the old owner's id is no one's.
      expect(await s.registerAgent({ id: gone, name: 'n', sourceRuntime: 'openclaw', tenantId: other.id, now })).toBe('exists');
      expect(await s.registerAgent({ id: gone, name: 'n', sourceRuntime: 'openclaw', tenantId: to.id, now })).not.toBe('exists');

      expect(await s.rotateApiKey({ id: missing, now })).toBeNull();
      const rotated = await s.rotateApiKey({ id: to.id, now: new Date(START + 1000) });
      expect(rotated).toMatchObject({ name: 'to', admin: false, agents: [a1, a2, gone] });
      expect(await s.identifyKey({ key: to.key })).toBeNull();
      expect(await s.sessionKeyIdentity({ keyId: to.id, sessionId: '1c000000-0000-4000-8000-000000000010' })).toBeNull();
      expect(await s.identifyKey({ key: rotated!.key })).toEqual({ id: rotated!.id, admin: false });
      expect((await s.listAgents({ tenantId: rotated!.id })).map((r) => r.id).sort()).toEqual([a1, a2, gone]);
    }
  });
}
