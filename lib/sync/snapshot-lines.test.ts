/**
 * A first sync's large partition deflated in the worker while its lines were made (snapshot.ts
 * `checkedRecordLines`, archive/partition-lines.ts, deflate-ahead.ts `StreamedDeflate`) gives the archive the bytes the writer makes without it; the
 * writer uses such a Deflate only for exactly the bytes it was given, and deflates the member itself
 * otherwise.
 */
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { SMALL_BYTES } from '@/lib/core/archive/deflate-ahead';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import { writeSnapshot } from '@/lib/core/archive/write-snapshot';
import type { MemoryRecord } from '@/lib/core/record';
import { checkedRecordLines } from './snapshot';

const AGENT = '7b0f3c2e-4444-4a2b-8c3d-0000000000a1';

/** `count` records with text that repeats (what Deflate finds matches in) and text that does not; every `inQ2`th in the next quarter. */
function records(count: number, inQ2: number, seed = 1): MemoryRecord[] {
  let x = seed;
  const word = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return ['memory', 'agent', 'fact', 'the', 'user', 'prefers', 'é', '漢字', '\u0000'.slice(1), String(x % 9973)][x % 10];
  };
  return Array.from({ length: count }, (_, n) => ({
    id: `0190a000-0000-7000-8000-${(n + 1).toString(16).padStart(12, '0')}`,
    agent_id: AGENT,
    content: Array.from({ length: 40 + (n % 150) }, word).join(' '),
    memory_type: 'semantic',
    source: { runtime: 'openclaw', origin: 'memory_md', origin_file: `memory/f${n % 37}.md` },
    temporal: { created_at: n % inQ2 === 0 ? '2026-04-02T10:00:00Z' : '2026-01-15T10:00:00Z' },
    status: 'active',
    namespace: 'curated',
  }) as MemoryRecord);
}

const snapshotOf = (recs: MemoryRecord[]): AlfSnapshot => ({
  manifest: { alf_version: '1.0.0', created_at: '2026-06-01T00:00:00Z', agent: { id: AGENT, name: 'a', source_runtime: 'openclaw' }, layers: {} },
  records: recs, layers: {}, raw: new Map([['raw/openclaw/MEMORY.md', Buffer.from('# Memory\n')]]), extra: new Map(),
});

/** Counts zlib's one-shot raw Deflates of members at least `from` bytes (the writer's own, made when nothing ahead is used). */
function countLargeDeflates(from: number): { count: () => number; restore: () => void } {
  const module = zlib as unknown as { deflateRaw: (...args: unknown[]) => unknown };
  const original = module.deflateRaw;
  let count = 0;
  module.deflateRaw = (buffer: unknown, ...rest: unknown[]) => {
    if ((buffer as Uint8Array).byteLength >= from) count++;
    return original(buffer, ...rest);
  };
  return { count: () => count, restore: () => { module.deflateRaw = original; } };
}

let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

describe('partitions deflated while their lines are made', () => {
  it('the same archive bytes as the writer alone, the large partitions deflated ahead (several buffers each, one past 4 MB)', async () => {
    const recs = records(9000, 5);
    const snapshot = snapshotOf(recs);
    const plain = await writeSnapshot(snapshot, { recordLines: checkedRecordLines(recs).lines });
    expect(Buffer.from(plain).equals(Buffer.from(await writeSnapshot(snapshot)))).toBe(true);

    const serialized = checkedRecordLines(recs, { deflateAhead: true });
    expect([...serialized.partitionsAhead.keys()].sort()).toEqual(['memory/2026-Q1.jsonl', 'memory/2026-Q2.jsonl']);
    // The lines are views of shared memory (the worker read them in place).
    expect(serialized.lines.every((line) => line.source.buffer instanceof SharedArrayBuffer)).toBe(true);
    const counter = countLargeDeflates(SMALL_BYTES);
    restore = counter.restore;
    const ahead = await writeSnapshot(snapshot, { recordLines: serialized.lines, partitionsAhead: serialized.partitionsAhead });
    expect(counter.count()).toBe(0);
    expect(Buffer.from(ahead).equals(Buffer.from(plain))).toBe(true);
    const q1 = serialized.lines.filter((_, i) => i % 5 !== 0).reduce((n, line) => n + line.end - line.start + 1, 0);
    expect(q1).toBeGreaterThan(4 * 1024 * 1024);
  });

  it('a Deflate started for other bytes is not used: the member is deflated by the writer, the archive the same', async () => {
    const recs = records(4000, 1000, 7);
    const other = records(4000, 1000, 8);
    const snapshot = snapshotOf(recs);
    const plain = await writeSnapshot(snapshot);
    // Another set of lines' Deflates, for the same partition names.
    const wrong = checkedRecordLines(other, { deflateAhead: true });
    expect(wrong.partitionsAhead.size).toBe(1);
    const counter = countLargeDeflates(SMALL_BYTES);
    restore = counter.restore;
    const written = await writeSnapshot(snapshot, { recordLines: checkedRecordLines(recs).lines, partitionsAhead: wrong.partitionsAhead });
    expect(counter.count()).toBe(1);
    expect(Buffer.from(written).equals(Buffer.from(plain))).toBe(true);
  });

  it('a record whose timestamp the writer refuses: nothing is deflated ahead, and the writer refuses it as before', async () => {
    const recs = records(3000, 1000);
    recs[2000] = { ...recs[2000]!, temporal: { created_at: 'not a time' } };
    const serialized = checkedRecordLines(recs, { deflateAhead: true });
    expect(serialized.partitionsAhead.size).toBe(0);
    await expect(writeSnapshot(snapshotOf(recs), { recordLines: serialized.lines, partitionsAhead: serialized.partitionsAhead }))
      .rejects.toMatchObject({ code: 'bad_record', message: expect.stringContaining('is not RFC 3339') });
  });

  it('ids: a repeated one refused as the writer refuses it, once every shape has passed; the writer takes them as checked only for the very array checked', async () => {
    const recs = records(600, 7);
    recs[400] = { ...recs[400]!, id: recs[100]!.id };
    recs[500] = { ...recs[500]!, id: recs[200]!.id };
    const writers = await writeSnapshot(snapshotOf(recs)).then(() => null, (e: unknown) => e);
    expect(writers).toMatchObject({ code: 'duplicate_record_id', message: `cannot write: record id ${recs[100]!.id} appears twice` });
    expect(() => checkedRecordLines(recs, { deflateAhead: true })).toThrow(writers as Error);
    // A record the shape check refuses, after both: that refusal, as when the writer checked the ids.
    const shapeToo = [...recs];
    shapeToo[550] = { ...recs[550]!, content: 7 } as unknown as MemoryRecord;
    expect(() => checkedRecordLines(shapeToo)).toThrow(/^cannot write records\[550\]\.content: expected a string$/);

    // Lines made of other records (their ids distinct): the writer checks the ids of the ones it is given.
    const distinct = records(600, 7);
    const { lines, distinctIdsOf } = checkedRecordLines(distinct);
    expect(distinctIdsOf).toBe(distinct);
    const sameLines = recs.map((_, i) => (i === 400 || i === 500 ? checkedRecordLines([recs[i]!]).lines[0] : lines[i]));
    await expect(writeSnapshot(snapshotOf(recs), { recordLines: sameLines, distinctIdsOf: distinct }))
      .rejects.toMatchObject({ code: 'duplicate_record_id', message: (writers as Error).message });
    // The very array checked: the same archive as the writer's own checks give.
    expect(Buffer.from(await writeSnapshot(snapshotOf(distinct), { recordLines: lines, distinctIdsOf })).equals(Buffer.from(await writeSnapshot(snapshotOf(distinct))))).toBe(true);
  });
});
