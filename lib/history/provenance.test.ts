import { describe, expect, it } from 'vitest';
import type { DerivedOp } from './index-rows';
import { linkMoves, moveContentKey } from './provenance';

function op(kind: DerivedOp['op'], id: string, file: string | null, content: string, lineStart?: number): DerivedOp {
  const record = lineStart === undefined ? {} : { raw_source_format: { heading: null, line_start: lineStart, line_end: lineStart + 1 } };
  return {
    op: kind, prev: null, moved_from: null,
    fields: {
      record_id: id, content, content_sha256: '', memory_type: 'semantic', namespace: 'n', status: 'active', origin_file: file,
      heading: null, tags: '[]', record_json: JSON.stringify(record), created_at: null, updated_at: null, observed_at: null,
    },
  };
}

const pairs = (ops: DerivedOp[]) => ops.filter((o) => o.op === 'move').map((o) => [o.moved_from, o.fields.record_id]);

describe('moveContentKey', () => {
  it('normalises line endings and the trailing whitespace of each line, nothing else', () => {
    expect(moveContentKey('## A\r\nbody  \r\nmore\t\n\n')).toBe('## A\nbody\nmore');
    expect(moveContentKey('## A\rbody')).toBe(moveContentKey('## A\nbody'));
    expect(moveContentKey('  ## A')).not.toBe(moveContentKey('## A'));
    expect(moveContentKey('a b')).not.toBe(moveContentKey('a  b'));
  });
});

describe('linkMoves', () => {
  it('pairs a delete and a create of the same content in another file; the create becomes the move', () => {
    const ops = [op('delete', 'd1', 'a.md', '## X\r\nfact  \n'), op('create', 'c1', 'b.md', '## X\nfact')];
    linkMoves(ops);
    expect(ops.map((o) => [o.op, o.moved_from, o.moved_to ?? null])).toEqual([['delete', null, 'c1'], ['move', 'd1', null]]);
  });

  it('never pairs within one file, nor across edited content, nor records without a file', () => {
    const ops = [
      op('delete', 'd1', 'a.md', 'fact'), op('create', 'c1', 'a.md', 'fact'),
      op('delete', 'd2', 'a.md', 'other'), op('create', 'c2', 'b.md', 'other, edited'),
      op('delete', 'd3', null, 'loose'), op('create', 'c3', null, 'loose'),
    ];
    linkMoves(ops);
    expect(ops.map((o) => o.op)).toEqual(['delete', 'create', 'delete', 'create', 'delete', 'create']);
    expect(ops.every((o) => o.moved_to === undefined && o.moved_from === null)).toBe(true);
  });

  it('pairs identical sections in (file, position) order, whatever order the entry lists them in', () => {
    const make = () => [
      op('create', 'c3', 'archive/x.md', 'same', 9), op('delete', 'd2', 'episodic/x.md', 'same', 5),
      op('create', 'c1', 'archive/x.md', 'same', 1), op('delete', 'd3', 'episodic/x.md', 'same', 9),
      op('delete', 'd1', 'episodic/x.md', 'same', 1), op('create', 'c2', 'archive/x.md', 'same', 5),
    ];
    const first = make();
    linkMoves(first);
    expect(pairs(first).sort()).toEqual([['d1', 'c1'], ['d2', 'c2'], ['d3', 'c3']]);
    const reversed = make().reverse();
    linkMoves(reversed);
    expect(pairs(reversed).sort()).toEqual(pairs(first).sort());
  });

  it('pairs each create with the first unpaired delete from another file, files in byte order', () => {
    const ops = [
      op('delete', 'dB', 'b.md', 'fact', 1), op('delete', 'dA', 'a.md', 'fact', 1),
      op('create', 'cA', 'a.md', 'fact', 7), op('create', 'cZ', 'z.md', 'fact', 1), op('create', 'cZ2', 'z.md', 'fact', 4),
    ];
    linkMoves(ops);
    // cA (a.md) skips dA (same file) and takes dB; cZ takes dA; cZ2 finds none left.
    expect(pairs(ops)).toEqual([['dB', 'cA'], ['dA', 'cZ']]);
    expect(ops.find((o) => o.fields.record_id === 'cZ2')!.op).toBe('create');
  });
});
