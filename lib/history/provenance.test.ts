import { expect, it } from 'vitest';
import type { DerivedOp } from './index-rows';
import { linkMoves } from './provenance';

function op(kind: DerivedOp['op'], id: string, file: string | null, content: string): DerivedOp {
  return {
    op: kind, prev: null, moved_from: null,
    fields: {
      record_id: id, content, content_sha256: '', memory_type: 'semantic', namespace: 'n', status: 'active', origin_file: file,
      heading: null, tags: '[]', record_json: '{}', created_at: null, updated_at: null, observed_at: null,
    },
  };
}

it('links creates to deletes of equal trimmed content from another file, FIFO, once each', () => {
  const ops = [
    op('delete', 'd1', 'a.md', 'fact\n'),
    op('delete', 'd2', 'b.md', 'fact'),
    op('delete', 'd3', 'c.md', 'other'),
    op('create', 'c1', 'a.md', 'fact'), // same file as d1: skips to d2
    op('create', 'c2', 'z.md', '  fact  '), // takes d1
    op('create', 'c3', 'z.md', 'fact'), // nothing left
    op('create', 'c4', 'c.md', 'other'), // same file only: no link
  ];
  linkMoves(ops);
  expect(ops.filter((o) => o.op === 'create').map((o) => [o.fields.record_id, o.moved_from])).toEqual([
    ['c1', 'd2'], ['c2', 'd1'], ['c3', null], ['c4', null],
  ]);
});
