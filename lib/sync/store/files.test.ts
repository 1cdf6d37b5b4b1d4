import { describe, expect, it } from 'vitest';
import { StoreDamaged } from './errors';
import { encodeIndex, lookupStat, parseIndex, type IndexFile, type StoreIndex } from './index-file';
import { encodeTable, parseTable, type TableRow } from './table';

const WRITTEN = 2_000_000_000_000_000_000n;
const file = (rel: string, mtimeNs: bigint, extra: Partial<IndexFile> = {}): IndexFile => ({
  rel, stat: { ino: 42n, size: 17n, mtimeNs, ctimeNs: mtimeNs }, digest: 'ab'.repeat(32), kind: 's', raw: { off: 0, len: 17 }, table: { off: 17, len: 40 }, linesBytes: 300, ...extra,
});
const index = (files: IndexFile[]): StoreIndex => ({
  sequence: 7, generation: 2, logLength: 4096, liveBytes: 1000, alf: null, context: 'flat', files,
  meta: { agent_name: 'atlas', workspace: '/ws', created_at: '2026-11-01T09:00:00.000Z', key_version: 'v', layers: { identity: { name: 'A' } }, store_raw: true },
});

describe('store index file', () => {
  const files = [file('MEMORY.md', WRITTEN - 5_000_000_000n), file('memory/a "quoted"\nnamé.md', WRITTEN - 1n), file('memory/blob.bin', WRITTEN - 9n, { digest: null, kind: 'n', table: null, linesBytes: 0 })];

  it('reads back what it wrote; an unchanged stat is found, any changed field is not', () => {
    const read = parseIndex(encodeIndex(index(files)));
    expect(read).toEqual(index(files));
    const byRel = new Map(read.files.map((f) => [f.rel, f]));
    const stat = files[0]!.stat;
    expect(lookupStat(byRel, WRITTEN, 'MEMORY.md', stat)).toEqual(files[0]);
    for (const field of ['ino', 'size', 'mtimeNs', 'ctimeNs'] as const) expect(lookupStat(byRel, WRITTEN, 'MEMORY.md', { ...stat, [field]: stat[field] + 1n })).toBeNull();
    expect(lookupStat(byRel, WRITTEN, 'USER.md', stat)).toBeNull();
  });

  it("git's racy rule: an entry whose ctime is not older than the index is not trusted; nor a file read every time", () => {
    const byRel = new Map([['a.md', file('a.md', WRITTEN)], ['b.md', file('b.md', WRITTEN - 10n, { kind: 'r' })]]);
    expect(lookupStat(byRel, WRITTEN, 'a.md', byRel.get('a.md')!.stat)).toBeNull();
    expect(lookupStat(byRel, WRITTEN + 1n, 'a.md', byRel.get('a.md')!.stat)).not.toBeNull();
    expect(lookupStat(byRel, WRITTEN, 'b.md', byRel.get('b.md')!.stat)).toBeNull();
    // Judged by the ctime: an mtime set ahead of the clock alone does not make a file racy.
    const ahead = file('c.md', WRITTEN + 1_000_000_000_000n, {});
    ahead.stat = { ...ahead.stat, ctimeNs: WRITTEN - 10n };
    expect(lookupStat(new Map([['c.md', ahead]]), WRITTEN, 'c.md', ahead.stat)).toEqual(ahead);
  });

  it('an entry written again unchanged is its line as read; any field changed is written anew, as a fresh encoding has it', () => {
    const read = parseIndex(encodeIndex(index(files)));
    // What a sync's state write passes: new entry objects, equal to the parsed ones or not.
    const changes: Partial<IndexFile>[] = [
      { stat: { ...read.files[0]!.stat, ctimeNs: read.files[0]!.stat.ctimeNs + 1n } }, { digest: 'cd'.repeat(32) }, { kind: 'u' },
      { raw: { off: 1, len: 17 } }, { table: { off: 17, len: 41 } }, { table: null, kind: 'n' }, { linesBytes: 301 },
    ];
    for (const change of changes) {
      const next = index([{ ...read.files[0]!, ...change }, { ...read.files[1]! }, read.files[2]!]);
      expect(encodeIndex(next, read.files).toString('utf8')).toBe(encodeIndex(next).toString('utf8'));
    }
    expect(encodeIndex(index(read.files.map((f) => ({ ...f }))), read.files)).toEqual(encodeIndex(index(files)));
  });

  it('refuses an index it cannot read exactly: torn, padded, foreign header, repeated path, a ref past its log', () => {
    const bytes = encodeIndex(index(files));
    const damaged = [
      bytes.subarray(0, bytes.length - 3),
      Buffer.concat([bytes, Buffer.from('x')]),
      Buffer.from(bytes.toString('utf8').replace('lineage-state 1', 'lineage-state 2')),
      encodeIndex(index([files[0]!, files[0]!])),
      encodeIndex(index([file('MEMORY.md', 1n, { raw: { off: 4000, len: 200 } })])),
      Buffer.alloc(0),
    ];
    for (const d of damaged) expect(() => parseIndex(d)).toThrow(StoreDamaged);
  });
});

describe('store record table', () => {
  const rows: TableRow[] = [
    { key: 'k'.repeat(32), early: true, partition: 'memory/2026-Q4.jsonl', id: '0b6f3c1e-5d2a-4e8f-9c7b-1a2b3c4d5e6f', line: { off: 0, len: 120 } },
    { key: 'j'.repeat(32), early: false, partition: 'memory/2025-Q1.jsonl', id: 'we"ird\\id ü\n', line: { off: 121, len: 99 } },
  ];

  it('reads back what it wrote', () => {
    expect(parseTable(encodeTable(rows), 't')).toEqual(rows);
    expect(parseTable(encodeTable([]), 't')).toEqual([]);
  });

  it('refuses a torn or foreign table, and a partition file not of ours', () => {
    const bytes = encodeTable(rows);
    expect(() => parseTable(bytes.subarray(0, bytes.length - 1), 't')).toThrow(StoreDamaged);
    expect(() => parseTable(Buffer.from('not a table\n'), 't')).toThrow(StoreDamaged);
    expect(() => encodeTable([{ ...rows[0]!, partition: 'memory/partitions/2026-Q4.jsonl' }])).toThrow(/not a partition file of ours/);
  });
});
