import { describe, expect, it } from 'vitest';
import { RAW_FILES_PAGE, RAW_LINK_BUDGET, rawFileWindow } from './raw-file-window';

const file = (i: number, ops: number) => ({ path: `memory/topics/t${String(i).padStart(3, '0')}.md`, record_ids: Array.from({ length: ops }, (_, j) => `r${i}-${j}`) });

describe('rawFileWindow', () => {
  it('draws a page of a first sync’s 500 files and at most the link budget of op links inline', () => {
    const raw = Array.from({ length: 500 }, (_, i) => file(i, 20));
    const window = rawFileWindow(raw, RAW_FILES_PAGE);
    expect(window.files).toHaveLength(RAW_FILES_PAGE);
    expect(window.hidden).toBe(400);
    expect(window.inline.size * 20).toBeLessThanOrEqual(RAW_LINK_BUDGET);
    expect([...window.inline]).toEqual(raw.slice(0, RAW_LINK_BUDGET / 20).map((f) => f.path));
    expect(rawFileWindow(raw, 500).files).toHaveLength(500);
  });

  it('keeps a small sync whole: every file and every link inline', () => {
    const raw = [file(0, 20), file(1, 2), file(2, 0)];
    const window = rawFileWindow(raw, RAW_FILES_PAGE);
    expect(window.files).toEqual(raw);
    expect(window.hidden).toBe(0);
    expect(window.inline).toEqual(new Set(raw.map((f) => f.path)));
  });
});
