import { describe, expect, it } from 'vitest';
import { applyDelta, computeDelta, countOps, diffRaw } from './delta';
import { chunkBirthIds } from './ids';
import type { MemoryRecord } from './record';
import { headingKey, reconcile } from './reconcile';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

/** Records shaped like the OpenClaw adapter's `## ` sections of one file. */
function sections(file: string, bodies: [heading: string, body: string][], mtime: string): MemoryRecord[] {
  const contents = bodies.map(([h, b]) => `## ${h}\n${b}\n`);
  const ids = chunkBirthIds({ runtime: 'openclaw', agentId: AGENT, originFile: file, contents });
  let line = 1;
  return contents.map((content, i) => {
    const lines = content.split('\n').length - 1;
    const record: MemoryRecord = {
      id: ids[i]!,
      agent_id: AGENT,
      content,
      memory_type: 'semantic',
      source: { runtime: 'openclaw', origin: 'workspace', origin_file: file, extraction_method: 'user_authored' },
      temporal: { created_at: mtime, updated_at: mtime },
      status: 'active',
      tags: ['curated'],
      namespace: 'curated',
      raw_source_format: { heading: bodies[i]![0], line_end: line + lines - 1, line_start: line },
    };
    line += lines;
    return record;
  });
}

describe('reconcile: the curation example', () => {
  const base = reconcile({
    agentId: AGENT,
    prev: [],
    curr: sections('MEMORY.md', [
      ['Deploy target', 'Production runs on host 10.0.4.17.'],
      ['Reference code', 'The reference code is ALPHA-7.'],
      ['Owner', 'Dana owns the billing service.'],
      ['Scratch', 'Remember to rotate the buffer.'],
    ], '2026-11-01T00:00:00Z'),
  }).records;

  // One agent turn later: re-ranked, reference code replaced in its slot, a lesson added, scratch gone.
  const fresh = sections('MEMORY.md', [
    ['Owner', 'Dana owns the billing service.'],
    ['Reference code', 'The reference code is BRAVO-9 since the rotation.'],
    ['Deploy target', 'Production runs on host 10.0.4.17.'],
    ['Lesson', 'Never deploy on Fridays.'],
  ], '2026-11-02T00:00:00Z');

  const result = reconcile({ agentId: AGENT, prev: base, curr: fresh });
  const ops = computeDelta(base, result.records);

  it('syncs as exactly one update, one create and one delete', () => {
    expect(countOps(ops)).toEqual({ creates: 1, updates: 1, deletes: 1 });
    expect(ops.find((o) => o.operation === 'delete')!.record.content).toContain('rotate the buffer');
    expect(ops.find((o) => o.operation === 'create')!.record.content).toContain('Never deploy');
  });

  it('keeps the replaced section its id and created_at', () => {
    const before = base.find((r) => r.content.includes('ALPHA-7'))!;
    const update = ops.find((o) => o.operation === 'update')!.record;
    expect(update.id).toBe(before.id);
    expect(update.temporal.created_at).toBe('2026-11-01T00:00:00Z');
    expect(update.content).toContain('BRAVO-9');
  });

  it('produces no ops for the re-ranked sections and carries their old metadata', () => {
    const owner = result.records.find((r) => r.content.includes('Dana'))!;
    expect(owner.id).toBe(base.find((r) => r.content.includes('Dana'))!.id);
    expect(owner.raw_source_format).toEqual(base.find((r) => r.content.includes('Dana'))!.raw_source_format);
    expect(ops.some((o) => o.record.id === owner.id)).toBe(false);
    expect(result.stats).toMatchObject({ carried: 2, heading_matched: 1, created: 1, deleted: 1 });
  });

  it('keeps extraction order and marks the output rewritten', () => {
    expect(result.records.map((r) => r.raw_source_format?.heading)).toEqual(['Owner', 'Reference code', 'Deploy target', 'Lesson']);
    expect(result.rewritten).toBe(true);
  });

  it('an idle sync reconciles to identical records and no ops', () => {
    const again = reconcile({ agentId: AGENT, prev: result.records, curr: fresh });
    expect(computeDelta(result.records, again.records)).toEqual([]);
  });
});

describe('reconcile: passes and re-minting', () => {
  it('pairs duplicate contents first-in-first-out and re-mints colliding creates', () => {
    const prev = sections('memory/a.md', [['X', 'same'], ['Y', 'other']], '2026-01-01T00:00:00Z');
    // A section born elsewhere with the id of a base record must not steal that id.
    const stray: MemoryRecord = { ...prev[1]!, content: '## Z\nnew text\n', source: { ...prev[1]!.source, origin_file: 'memory/b.md' }, raw_source_format: { heading: 'Z', line_start: 1, line_end: 2 } };
    const curr = [prev[0]!, { ...prev[1]!, content: '## Y\nchanged\n' }, stray];
    const result = reconcile({ agentId: AGENT, prev, curr });
    expect(result.records[1]!.id).toBe(prev[1]!.id);
    expect(result.records[2]!.id).not.toBe(prev[1]!.id);
    expect(result.stats.reminted).toBe(1);
    expect(new Set(result.records.map((r) => r.id)).size).toBe(3);
  });

  it('matches by id across scopes when content and heading both changed (P3)', () => {
    const prev: MemoryRecord[] = [{ ...sections('ns', [['K', 'v1']], '2026-01-01T00:00:00Z')[0]!, raw_source_format: { key: 'k' }, source: { runtime: 'zeroclaw' }, namespace: 'core' }];
    const curr: MemoryRecord[] = [{ ...prev[0]!, content: 'v2', temporal: { created_at: '2026-02-01T00:00:00Z' } }];
    const result = reconcile({ agentId: AGENT, prev, curr });
    expect(result.stats.id_matched).toBe(1);
    expect(result.records[0]!.temporal.created_at).toBe('2026-01-01T00:00:00Z');
    expect(countOps(computeDelta(prev, result.records))).toEqual({ creates: 0, updates: 1, deletes: 0 });
  });

  it('derives the heading key from a # title when the heading slot is empty', () => {
    const r = sections('f.md', [['A', 'b']], '2026-01-01T00:00:00Z')[0]!;
    expect(headingKey({ ...r, raw_source_format: { heading: null }, content: '# Title\nbody' })).toBe('# Title');
    expect(headingKey({ ...r, raw_source_format: { key: 'x' } })).toBeNull();
  });
});

describe('computeDelta / applyDelta', () => {
  const [a, b, c] = sections('f.md', [['A', '1'], ['B', '2'], ['C', '3']], '2026-01-01T00:00:00Z') as [MemoryRecord, MemoryRecord, MemoryRecord];
  it('orders creates, updates, deletes and round-trips through apply', () => {
    const b2 = { ...b, content: '## B\nchanged\n' };
    const d: MemoryRecord = { ...c, id: '00000000-0000-5000-8000-000000000001' };
    const ops = computeDelta([a, b, c], [d, b2, a]);
    expect(ops.map((o) => o.operation)).toEqual(['create', 'update', 'delete']);
    expect(applyDelta([a, b, c], ops)).toEqual([a, b2, d]);
  });
  it('compares key-order-insensitively', () => {
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as MemoryRecord;
    expect(computeDelta([a], [reordered])).toEqual([]);
  });
  it('ignores creates of present ids, updates and deletes of absent ones', () => {
    const ghost = { ...a, id: '00000000-0000-5000-8000-00000000000f' };
    expect(applyDelta([a], [{ operation: 'create', record: { ...a, content: 'x' } }, { operation: 'update', record: ghost }, { operation: 'delete', record: ghost }])).toEqual([a]);
  });
});

describe('diffRaw', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  it('reports changed and deleted files of the runtime only', () => {
    const base = new Map([['raw/openclaw/a.md', bytes('a')], ['raw/openclaw/b.md', bytes('b')], ['raw/other/x', bytes('x')]]);
    const curr = new Map([['raw/openclaw/a.md', bytes('a')], ['raw/openclaw/c.md', bytes('c')], ['raw/openclaw/dir/', bytes('')]]);
    const { changed, deleted } = diffRaw(base, curr, 'openclaw');
    expect([...changed.keys()]).toEqual(['raw/openclaw/c.md']);
    expect(deleted).toEqual(['raw/openclaw/b.md']);
  });
});

describe('jsonEqual', () => {
  it('is structural, key-order-insensitive and ignores undefined members', async () => {
    const { jsonEqual } = await import('./json');
    expect(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: [] }, { a: {} })).toBe(false);
    expect(jsonEqual(JSON.parse('{"__proto__":{"x":1}}'), {})).toBe(false);
  });
});
