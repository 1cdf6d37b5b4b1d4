import { describe, expect, it } from 'vitest';
import type { DerivedOp } from './index-rows';
import { linkMoves, moveContentKey, renameContentKey } from './provenance';

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

describe('renameContentKey', () => {
  it('drops a first line that is a markdown heading and the blank lines after it, nothing else', () => {
    expect(renameContentKey('## Boston\r\n\nOffice on Summer St.  \n')).toBe('Office on Summer St.');
    expect(renameContentKey('Office on Summer St.')).toBe('Office on Summer St.');
    expect(renameContentKey('intro\n## Boston\nbody')).toBe('intro\n## Boston\nbody');
    expect(renameContentKey('## Only a heading\n\n')).toBe('');
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

  it('pairs a section renamed in its file, or renamed and moved, by its body', () => {
    const ops = [
      op('delete', 'dBoston', 'MEMORY.md', '## Boston\nOffice on Summer St.', 3), op('create', 'cBoston', 'MEMORY.md', '## Boston Office\nOffice on Summer St.\n', 3),
      op('delete', 'dNyc', 'MEMORY.md', '## NYC\nDesk at Hudson Yards.', 6), op('create', 'cNyc', 'people/nyc.md', '# New York\n\nDesk at Hudson Yards.', 1),
    ];
    linkMoves(ops);
    expect(pairs(ops)).toEqual([['dBoston', 'cBoston'], ['dNyc', 'cNyc']]);
    expect(ops.filter((o) => o.op === 'delete').map((o) => o.moved_to)).toEqual(['cBoston', 'cNyc']);
  });

  it('a renamed section whose body changed too, or that is only a heading, stays a create and a delete', () => {
    const ops = [
      op('delete', 'd1', 'MEMORY.md', '## Boston\nOffice on Summer St.'), op('create', 'c1', 'MEMORY.md', '## Boston Office\nOffice on Congress St.'),
      op('delete', 'd2', 'MEMORY.md', '## Empty\n'), op('create', 'c2', 'MEMORY.md', '## Still empty'),
    ];
    linkMoves(ops);
    expect(ops.map((o) => o.op)).toEqual(['delete', 'create', 'delete', 'create']);
    expect(ops.every((o) => o.moved_to === undefined)).toBe(true);
  });

  it('the exact-content pass goes first: an unchanged move wins over a rename of the same body', () => {
    const ops = [
      op('delete', 'd0', 'a.md', '## Same\nAll quiet.', 1),
      op('create', 'cRenamed', 'a.md', '## Renamed\nAll quiet.', 1), op('create', 'cMoved', 'b.md', '## Same\nAll quiet.', 1),
    ];
    linkMoves(ops);
    expect(pairs(ops)).toEqual([['d0', 'cMoved']]);
    expect(ops[1]!.op).toBe('create');
  });

  it('renames of one body pair in (file, position) order, whatever the entry order', () => {
    const make = () => [
      op('create', 'cB', 'MEMORY.md', '## Second\nAll quiet.', 8), op('delete', 'dA', 'MEMORY.md', '## One\nAll quiet.', 1),
      op('create', 'cA', 'MEMORY.md', '## First\nAll quiet.', 1), op('delete', 'dB', 'MEMORY.md', '## Two\nAll quiet.', 8),
    ];
    const first = make();
    linkMoves(first);
    expect(pairs(first).sort()).toEqual([['dA', 'cA'], ['dB', 'cB']]);
    const reversed = make().reverse();
    linkMoves(reversed);
    expect(pairs(reversed).sort()).toEqual(pairs(first).sort());
  });

  it('a heading removed leaves the body: one lineage', () => {
    const ops = [op('delete', 'd1', 'MEMORY.md', '## Boston\n\nOffice on Summer St.'), op('create', 'c1', 'MEMORY.md', 'Office on Summer St.\n')];
    linkMoves(ops);
    expect(pairs(ops)).toEqual([['d1', 'c1']]);
  });
});
