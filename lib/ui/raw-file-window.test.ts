import { describe, expect, it } from 'vitest';
import { RAW_FILES_PAGE, RAW_LINK_BUDGET, inlineLinks } from './raw-file-window';

const file = (i: number, ops: number) => ({ path: `memory/topics/t${String(i).padStart(3, '0')}.md`, record_ids: Array.from({ length: ops }, (_, j) => `r${i}-${j}`) });

describe('inlineLinks', () => {
  it('over a drawn page of a first sync’s files, draws at most the link budget of op links inline, first files first', () => {
    const drawn = Array.from({ length: RAW_FILES_PAGE }, (_, i) => file(i, 20));
    const inline = inlineLinks(drawn);
    expect(inline.size * 20).toBeLessThanOrEqual(RAW_LINK_BUDGET);
    expect([...inline]).toEqual(drawn.slice(0, RAW_LINK_BUDGET / 20).map((f) => f.path));
  });

  it('keeps a small sync whole: every link inline, and a file past the budget does not stop smaller ones after it', () => {
    const raw = [file(0, 20), file(1, 2), file(2, 0)];
    expect(inlineLinks(raw)).toEqual(new Set(raw.map((f) => f.path)));
    expect(inlineLinks([file(0, 5), file(1, 20), file(2, 3)], 10)).toEqual(new Set([file(0, 0).path, file(2, 0).path]));
  });
});
