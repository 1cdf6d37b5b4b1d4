import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StoreDamaged } from './errors';
import { jsonString } from './json-string';
import { encodeTable, parseTable, TableView, type TableRow } from './table';

const row = (i: number, id: string): TableRow => ({
  key: `k${i}`.padEnd(32, '0'), early: i % 2 === 0, partition: 'memory/2026-Q4.jsonl', id, line: { off: 1000 * i, len: 300 + i },
});

describe('TableView (a record table read row by row)', () => {
  it('gives each row as parseTable does', () => {
    const rows = [row(0, 'a'), row(1, '6f1c2a4e-8b3d-4e5f-9a7b-0c1d2e3f4a5b'), row(2, 'with "quotes" and \\')];
    const bytes = encodeTable(rows);
    const view = TableView.of(bytes, 't')!;
    expect(view).not.toBeNull();
    expect(view.length).toBe(3);
    for (let k = 0; k < 3; k++) {
      expect(view.key(k)).toBe(rows[k]!.key);
      expect(view.early(k)).toBe(rows[k]!.early);
      expect(view.lineLen(k)).toBe(rows[k]!.line.len);
      expect(view.row(k)).toEqual(parseTable(bytes, 't')[k]);
    }
    expect(view.rowOfId('with "quotes" and \\')).toBe(2);
  });

  it('gives rows from..to as the table\'s own bytes: what encodeTable writes of those rows (a carried run of a table, write-state.ts)', () => {
    const rows = [row(0, 'a'), row(1, '6f1c2a4e-8b3d-4e5f-9a7b-0c1d2e3f4a5b'), row(2, 'with "quotes" and \\'), { ...row(3, 'q'), partition: 'memory/2025-Q1.jsonl' }];
    const bytes = encodeTable(rows);
    const view = TableView.of(bytes, 't')!;
    for (let from = 0; from <= rows.length; from++) {
      for (let to = from; to <= rows.length; to++) expect(view.rowBytes(from, to).equals(encodeTable(rows.slice(from, to))), `${from}..${to}`).toBe(true);
    }
    expect(Buffer.concat([view.rowBytes(0, 1), encodeTable(rows.slice(1, 3)), view.rowBytes(3, 4)]).equals(bytes)).toBe(true);
  });

  it('is not made of a table outside printable ASCII (character and byte offsets would differ): null, the caller parses it whole', () => {
    for (const id of ['namé', 'ü', '\u{1f600}', 'del\x7f', 'c1\u0080']) {
      const bytes = encodeTable([row(0, 'a'), row(1, id)]);
      expect(TableView.of(bytes, 't'), JSON.stringify(id)).toBeNull();
      expect(parseTable(bytes, 't')[1]!.id).toBe(id);
    }
  });

  it('refuses a damaged table (StoreDamaged)', () => {
    const bytes = encodeTable([row(0, 'a'), row(1, 'b')]);
    expect(() => TableView.of(bytes.subarray(0, bytes.length - 1), 't')).toThrow(StoreDamaged);
    const torn = Buffer.from(bytes);
    torn[3] = 0x20;
    expect(() => TableView.of(torn, 't')).toThrow(StoreDamaged);
  });
});

/** The encoder before the rows' texts were joined: one string grown by `+=`, then its UTF-8 (the reference). */
function grownText(rows: readonly TableRow[]): Buffer {
  let text = '';
  let lastPartition = '';
  let quarter = '';
  for (const row of rows) {
    if (row.partition !== lastPartition) {
      const q = /^memory\/(\d{4}-Q[1-4])\.jsonl$/.exec(row.partition)?.[1];
      if (!q) throw new Error(`store table: ${JSON.stringify(row.partition)} is not a partition file of ours`);
      lastPartition = row.partition;
      quarter = q;
    }
    const id = jsonString(row.id);
    text += `${row.key} ${row.early ? 'e' : 'p'} ${quarter} ${row.line.off} ${row.line.len} ${id}\n`;
  }
  return Buffer.from(text, 'utf8');
}

describe('encodeTable (the rows\' texts joined once)', () => {
  // Ids and keys of every kind: ASCII, JSON escapes, two- to four-byte UTF-8, lone surrogates.
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.uuid(),
    fc.constantFrom('', 'a', 'namé', '\u{1f600}', '\ud800', 'x\udc00y', 'del\x7f', 'q"\\', 'tab\t', '\u0080'),
  );
  const number = fc.oneof(fc.nat(), fc.maxSafeNat(), fc.constantFrom(0, 9, 10, 99, 100, 2 ** 32, Number.MAX_SAFE_INTEGER));
  const rows = fc.array(fc.record({
    key: fc.oneof(fc.stringMatching(/^[0-9a-f]{1,40}$/), text),
    early: fc.boolean(),
    partition: fc.constantFrom('memory/2026-Q1.jsonl', 'memory/2026-Q4.jsonl', 'memory/1999-Q2.jsonl'),
    id: text,
    line: fc.record({ off: number, len: number }),
  }), { maxLength: 40 });

  it('writes the very bytes the string grown row by row gave, over random rows (non-ASCII ids and keys among them)', () => {
    fc.assert(fc.property(rows, (rs) => {
      expect(encodeTable(rs).equals(grownText(rs))).toBe(true);
    }), { numRuns: 2000, seed: 20261207 });
  });

  it('the same for a table of thousands of rows, and for rows of very long ids', () => {
    const many = Array.from({ length: 3000 }, (_, i) => row(i, i % 7 === 0 ? `id-${i}-é\u{1f600}`.repeat(i % 5) : `id-${i}`));
    expect(encodeTable(many).equals(grownText(many))).toBe(true);
    const long = [row(0, 'ü'.repeat(50_000)), row(1, 'a'.repeat(200_000)), row(2, '\u{1f600}'.repeat(70_000))];
    expect(encodeTable(long).equals(grownText(long))).toBe(true);
  });

  it('still refuses a partition not of ours', () => {
    expect(() => encodeTable([{ ...row(0, 'a'), partition: 'memory/x.jsonl' }])).toThrow(/not a partition file of ours/);
  });
});
