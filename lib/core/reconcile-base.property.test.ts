import { describe, expect, it } from 'vitest';
import { readSnapshot, readSnapshotLines, writeSnapshot } from './archive';
import { partitionRecords } from './archive/partitions';
import { RecordLines } from './archive/record-lines';
import { makeSnapshot } from './archive/testing/fixtures';
import { ArchiveError } from './archive/types';
import { computeDelta } from './delta';
import { prng } from './prng';
import { recordJson, type MemoryRecord } from './record';
import { reconcile } from './reconcile';
import { KnownRecord, KnownRecordMismatch, reconcileWithBase } from './reconcile-base';

const linesOf = (records: readonly MemoryRecord[]): RecordLines =>
  new RecordLines([{ file: 'memory/2026-Q1.jsonl', lines: records.map((r, k) => ({ line: k + 1, text: recordJson(r) })) }]);

/** Records in the order our writer lays them out (by partition), as lines in those partitions. */
const inWriterOrder = (records: readonly MemoryRecord[]): MemoryRecord[] => partitionRecords(records).flatMap((p) => p.records);
const partitionedLinesOf = (records: readonly MemoryRecord[]): RecordLines =>
  new RecordLines(partitionRecords(records).map((p) => ({ file: p.file, lines: p.records.map((r, k) => ({ line: k + 1, text: recordJson(r) })) })));

/** What a sync did before: parse the whole base, reconcile, compute_delta. */
function full(agentId: string, base: readonly MemoryRecord[], curr: readonly MemoryRecord[]) {
  const parsed = base.map((r) => JSON.parse(recordJson(r)) as MemoryRecord);
  const result = reconcile({ agentId, prev: parsed, curr });
  return { records: result.records, entries: computeDelta(parsed, result.records), stats: result.stats };
}

const show = (out: { records: MemoryRecord[]; entries: { operation: string; record: MemoryRecord }[] }) => ({
  records: out.records.map(recordJson),
  entries: out.entries.map((e) => `${e.operation} ${recordJson(e.record)}`),
});

describe('reconcileWithBase against parse + reconcile + compute_delta', () => {
  it('gives the same records, operations and stats on random stores and edits', async () => {
    for (let n = 0; n < 600; n++) {
      const rand = prng(1000 + n);
      const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      let serial = 0;
      const make = (): MemoryRecord => {
        const file = pick(['memory/a.md', 'memory/b.md', 'MEMORY.md', '']);
        return {
          id: pick(['id-1', 'id-2', 'id-3', `id-${serial++}`, 'q"uote', 'back\\slash', 'ünï-code']),
          agent_id: 'agent',
          content: pick(['## h\nx', '## h\nx \n', '## g\ny', 'z', '# t\nq', 'abcz', '## h\nx "quoted" {braces}']),
          memory_type: 'semantic',
          source: { runtime: 'openclaw', ...(file ? { origin_file: file } : {}) },
          temporal: { created_at: pick(['2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', '2026-04-01T00:00:00Z']), ...(rand() < 0.5 ? { observed_at: '2026-01-01T00:00:00Z' } : {}), updated_at: pick(['u1', 'u2']) },
          status: 'active',
          namespace: pick(['n1', 'n2']),
          ...(rand() < 0.3 ? { tags: [pick(['x', 'y'])] } : {}),
          ...(rand() < 0.7 ? { raw_source_format: { heading: pick([null, 'h', 'g', ' ']) } } : {}),
        };
      };
      // A base has unique ids (the reader rejects anything else).
      const base: MemoryRecord[] = [];
      const ids = new Set<string>();
      for (let k = Math.floor(rand() * 12); k > 0; k--) {
        const r = make();
        if (!ids.has(r.id)) (ids.add(r.id), base.push(r));
      }
      // The fresh export: mostly the base again (as is, re-timestamped, edited, re-tagged), some new.
      const curr: MemoryRecord[] = [];
      for (const r of base) {
        const roll = rand();
        if (roll < 0.35) curr.push({ ...r });
        else if (roll < 0.55) curr.push({ ...r, temporal: { ...r.temporal, updated_at: 'u3', created_at: '2026-03-01T00:00:00Z' } });
        else if (roll < 0.65) curr.push({ ...r, content: `${r.content}\n` });
        else if (roll < 0.75) curr.push({ ...r, tags: ['z'] });
        else if (roll < 0.8) curr.push({ ...r }, { ...r });
        else if (roll < 0.85) curr.push({ ...r, temporal: { updated_at: 'u3', created_at: r.temporal.created_at } });
        else if (roll < 0.9) curr.push({ ...r, content: `${r.content} \n`, raw_source_format: { ...(r.raw_source_format ?? {}), line_start: 9 }, temporal: { ...r.temporal, updated_at: 'u4' } });
      }
      for (let k = Math.floor(rand() * 4); k > 0; k--) curr.splice(Math.floor(rand() * (curr.length + 1)), 0, make());
      if (rand() < 0.3) curr.reverse();

      // Every third store goes through a real archive: lines are views of the partition's bytes.
      const viaArchive = n % 3 === 0;
      // The others are lines laid out as our writer would (a record memo only exists beside such a base).
      const lines = viaArchive ? (await readSnapshotLines(await writeSnapshot(makeSnapshot(base)))).records : partitionedLinesOf(base);
      const fast = reconcileWithBase({ agentId: 'agent', base: lines, curr });
      const reference = full('agent', viaArchive ? (await readSnapshot(await writeSnapshot(makeSnapshot(base)))).records : inWriterOrder(base), curr);
      expect(show(fast)).toEqual(show(reference));
      expect(fast.stats).toEqual(reference.stats);
      if (viaArchive) {
        // The next base, written from the lines it already has, is the same bytes.
        const next = makeSnapshot(fast.records);
        expect(Buffer.from(await writeSnapshot(next, { recordLines: fast.lines })).equals(Buffer.from(await writeSnapshot(next)))).toBe(true);
      }
      fast.lines.forEach((line, j) => {
        if (line !== undefined) expect(Buffer.from(line.source.subarray(line.start, line.end)).toString("utf8")).toBe(recordJson(fast.records[j]!));
      });

      // The records paired early, passed again as known (unbuilt; some verified): same result, and
      // the next base written from line-only records is the same bytes.
      const known = curr.map((r, j) => (fast.lines[j] === undefined ? r : new KnownRecord(r.id, { build: () => r }, j % 2 === 0)));
      const again = reconcileWithBase({ agentId: 'agent', base: lines, curr: known });
      expect(again.entries.map((e) => `${e.operation} ${recordJson(e.record)}`)).toEqual(show(fast).entries);
      expect(again.stats).toEqual(fast.stats);
      expect(again.lines).toEqual(fast.lines);
      again.records.forEach((r, j) => { if (fast.lines[j] === undefined) expect(recordJson(r)).toBe(recordJson(fast.records[j]!)); });
      if (viaArchive) {
        const next = Buffer.from(await writeSnapshot(makeSnapshot(fast.records)));
        expect(Buffer.from(await writeSnapshot(makeSnapshot(again.records), { recordLines: again.lines })).equals(next)).toBe(true);
      }
    }
  });

  it('pairs early a record whose line differs from its base line only where P0 carries the base\'s: timestamps, trailing blank lines, line numbers', () => {
    const base: MemoryRecord = {
      id: 'x', agent_id: 'agent', content: '## h\nbody', memory_type: 'semantic', source: { runtime: 'openclaw', origin_file: 'memory/a.md' },
      temporal: { created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }, status: 'active', namespace: 'n',
      raw_source_format: { heading: 'h', line_start: 3, line_end: 4 },
    };
    // The section moved down the file and gained a trailing blank line; its file's mtime moved.
    const moved: MemoryRecord = { ...base, content: '## h\nbody\n', temporal: { created_at: '2026-02-01T00:00:00Z', updated_at: '2026-02-01T00:00:00Z' }, raw_source_format: { heading: 'h', line_start: 7, line_end: 9 } };
    const out = reconcileWithBase({ agentId: 'agent', base: linesOf([base]), curr: [moved] });
    expect(Array.from(out.paired)).toEqual([0]);
    expect(out.entries).toEqual([]);
    expect(recordJson(out.records[0]!)).toBe(recordJson(base));
    expect(show(out)).toEqual(show(full('agent', [base], [moved])));
    // Another field changed too (its tags): P0 still pairs it, with an update, so not early.
    const retagged = reconcileWithBase({ agentId: 'agent', base: linesOf([base]), curr: [{ ...moved, tags: ['t'] }] });
    expect(Array.from(retagged.paired)).toEqual([-1]);
    expect(show(retagged)).toEqual(show(full('agent', [base], [{ ...moved, tags: ['t'] }])));
  });

  it('throws when a verified known record does not pair with its line, and builds one whose line is gone', () => {
    const r: MemoryRecord = {
      id: 'x', agent_id: 'agent', content: 'c', memory_type: 'semantic', source: { runtime: 'openclaw' },
      temporal: { created_at: '2026-01-01T00:00:00Z' }, status: 'active', namespace: 'n',
    };
    const lines = linesOf([r]);
    const edited = { ...r, content: 'd' };
    expect(() => reconcileWithBase({ agentId: 'agent', base: lines, curr: [new KnownRecord('x', { build: () => edited }, true)] })).toThrow(KnownRecordMismatch);
    // Not verified, it is taken at its word: its base line, unchanged.
    expect(reconcileWithBase({ agentId: 'agent', base: lines, curr: [new KnownRecord('x', { build: () => edited })] }).entries).toEqual([]);
    // Said known with an id the base does not hold: built, and reconciled like any record.
    const out = reconcileWithBase({ agentId: 'agent', base: lines, curr: [new KnownRecord('gone', { build: () => edited })] });
    expect(out.entries.map((e) => e.operation)).toEqual(['update']);
  });

  it('puts a known record in its base line\'s partition when that file is named as ours, else where its timestamps say', async () => {
    const r = (id: string, created_at: string): MemoryRecord => ({
      id, agent_id: 'agent', content: `c ${id}`, memory_type: 'semantic', source: { runtime: 'openclaw' },
      temporal: { created_at }, status: 'active', namespace: 'n',
    });
    const q1 = r('a', '2026-01-01T00:00:00Z');
    const q2 = r('b', '2026-04-01T00:00:00Z');
    const written = async (base: RecordLines) => {
      const out = reconcileWithBase({ agentId: 'agent', base, curr: [q1, q2].map((x) => new KnownRecord(x.id, { build: () => x })) });
      expect(out.entries).toEqual([]);
      const { records } = await readSnapshotLines(await writeSnapshot(makeSnapshot(out.records), { recordLines: out.lines }));
      return Array.from({ length: records.length }, (_, i) => `${records.partitionFile(i)} ${records.idHint(i)}`);
    };
    const line = (x: MemoryRecord, k: number) => ({ line: k + 1, text: recordJson(x) });
    // Our layout: taken from the file, without reading the line's timestamps.
    const ours = partitionedLinesOf([q1, q2]);
    ours.timestamps = () => { throw new Error('timestamps read'); };
    expect(await written(ours)).toEqual(['memory/2026-Q1.jsonl a', 'memory/2026-Q2.jsonl b']);
    // Another layout (the reference's partitions/ folder, or one file for all): by timestamps.
    expect(await written(new RecordLines([{ file: 'memory/partitions/2026-Q1.jsonl', lines: [q1, q2].map(line) }])))
      .toEqual(['memory/2026-Q1.jsonl a', 'memory/2026-Q2.jsonl b']);
    // A line in one of our files that is not its record's: a verified known record says so.
    const misplaced = linesOf([q1, q2]);
    expect(() => reconcileWithBase({ agentId: 'agent', base: misplaced, curr: [q1, new KnownRecord('b', { build: () => q2 }, true)] })).toThrow(KnownRecordMismatch);
  });

  it('pairs an unchanged large store without parsing it, and finds the one edit', () => {
    const base: MemoryRecord[] = Array.from({ length: 200 }, (_, k) => ({
      id: `00000000-0000-5000-8000-${String(k).padStart(12, '0')}`, agent_id: 'agent', content: `## fact ${k}\nbody ${k}`, memory_type: 'semantic',
      source: { runtime: 'openclaw', origin_file: 'memory/a.md' }, temporal: { created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
      status: 'active', namespace: 'n', raw_source_format: { heading: `fact ${k}` },
    }));
    const lines = linesOf(base);
    const parse = lines.record.bind(lines);
    let parsed = 0;
    lines.record = (i: number) => (parsed++, parse(i));
    // The file was edited: every record has its new mtime; one section's body changed.
    const curr = base.map((r) => ({ ...r, temporal: { ...r.temporal, updated_at: '2026-02-01T00:00:00Z' } }));
    curr[7] = { ...curr[7]!, id: 'fresh-birth-id', content: '## fact 7\nedited' };
    const out = reconcileWithBase({ agentId: 'agent', base: lines, curr });
    expect(parsed).toBe(1);
    expect(out.entries.map((e) => [e.operation, e.record.id, e.record.content])).toEqual([['update', base[7]!.id, '## fact 7\nedited']]);
    expect(out.stats).toMatchObject({ carried: 199, heading_matched: 1, created: 0, deleted: 0 });
  });

  it('refuses a base with a duplicate id or a broken line, as the eager reader does', () => {
    const r: MemoryRecord = {
      id: 'x', agent_id: 'agent', content: 'c', memory_type: 'semantic', source: { runtime: 'openclaw' },
      temporal: { created_at: '2026-01-01T00:00:00Z' }, status: 'active', namespace: 'n',
    };
    const twice = linesOf([r, { ...r, content: 'd' }]);
    expect(() => reconcileWithBase({ agentId: 'agent', base: twice, curr: [r] })).toThrow(ArchiveError);
    expect(() => reconcileWithBase({ agentId: 'agent', base: twice, curr: [r] })).toThrow(/record id x appears twice/);
    const broken = new RecordLines([{ file: 'memory/2026-Q1.jsonl', lines: [{ line: 1, text: recordJson(r) }, { line: 2, text: '{"id":"y",' }] }]);
    expect(() => reconcileWithBase({ agentId: 'agent', base: broken, curr: [r] })).toThrow(/memory\/2026-Q1.jsonl line 2: not valid JSON/);
  });
});
