import { describe, expect, it } from 'vitest';
import { StoreDamaged } from './errors';
import { encodeIndexV1 } from '../testing/index-v1';
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

  it('reads an index written as lineage-state 1 (text, by the clients before) as the same entries', () => {
    const v1 = encodeIndexV1(index(files));
    expect(v1.toString('utf8')).toMatch(/^lineage-state 1 7 2 4096 1000 - flat 3\n/);
    expect(parseIndex(v1)).toEqual(index(files));
    expect(parseIndex(v1)).toEqual(parseIndex(encodeIndex(index(files))));
    // Refused as before: torn, padded, a repeated path, a ref past its log.
    for (const d of [v1.subarray(0, v1.length - 3), Buffer.concat([v1, Buffer.from('x')]), encodeIndexV1(index([files[0]!, files[0]!])),
      encodeIndexV1(index([file('MEMORY.md', 1n, { raw: { off: 4000, len: 200 } })]))]) expect(() => parseIndex(d)).toThrow(StoreDamaged);
  });

  it('writes lineage-state 2: its columns hold every field exactly, whatever the path', () => {
    const wide = [
      file('a.md', -5n, { stat: { ino: 2n ** 64n - 1n, size: 2n ** 40n, mtimeNs: -5n, ctimeNs: 2n ** 63n - 1n } }),
      file('é/日本.md', 9n, { kind: 'u', raw: { off: 2 ** 40, len: 3 }, table: { off: 7, len: 2 ** 33 }, linesBytes: 2 ** 45 }),
      file('r.md', 1n, { kind: 'r', digest: null, table: null, linesBytes: 0 }),
      file('n.bin', 1n, { kind: 'n', digest: 'f0'.repeat(32), table: null }),
    ];
    const big = { ...index(wide), logLength: 2 ** 48 };
    const bytes = encodeIndex(big);
    expect(bytes.subarray(0, 16).toString()).toBe('lineage-state 2 ');
    expect(parseIndex(bytes)).toEqual(big);
    // Read at any alignment (a small file comes from Node's shared pool).
    for (const shift of [1, 3, 8]) expect(parseIndex(Buffer.concat([Buffer.alloc(shift), bytes]).subarray(shift))).toEqual(big);
    // A digest that is not 64 hex digits is not written.
    for (const digest of ['zz'.repeat(32), 'ab'.repeat(31), 'ab'.repeat(33)]) expect(() => encodeIndex(index([file('a.md', 1n, { digest })]))).toThrow(/not 64 hex digits/);
  });

  it('refuses an index it cannot read exactly: torn, padded, foreign header, repeated path, a ref past its log, a bad entry', () => {
    const bytes = encodeIndex(index(files));
    const at = bytes.length - 3 * (32 + 1 + 40 + 32);
    const withByte = (offset: number, value: number) => { const copy = Buffer.from(bytes); copy[offset] = value; return copy; };
    const damaged = [
      bytes.subarray(0, bytes.length - 3),
      Buffer.concat([bytes, Buffer.from('x')]),
      Buffer.concat([bytes, Buffer.alloc(8)]),
      Buffer.from(bytes.toString('latin1').replace('lineage-state 2', 'lineage-state 3'), 'latin1'),
      withByte(at - 1, 0x20), // the padding before the columns
      withByte(at + 32 * 3 + 7, 0x7f), // a ref not a whole number (an f64's sign and exponent)
      withByte(at + 32 * 3 + 40 * 3, 9), // a flags byte no kind has
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
