import { describe, expect, it } from 'vitest';
import { StoreDamaged } from './errors';
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
