import { describe, expect, it } from 'vitest';
import { fetchAllPages, type CursorPage } from './paging';

/** A listing of `total` numbers served `size` at a time, like the records API. */
function listing(total: number, size: number) {
  const asked: (string | null)[] = [];
  const fetchPage = async (cursor: string | null): Promise<CursorPage<number>> => {
    asked.push(cursor);
    const from = cursor === null ? 0 : Number(cursor);
    const items = Array.from({ length: Math.max(0, Math.min(size, total - from)) }, (_, i) => from + i);
    return { items, next_cursor: from + size < total ? String(from + size) : null };
  };
  return { fetchPage, asked };
}

describe('fetchAllPages', () => {
  it('collects every page, in order, past the first', async () => {
    const { fetchPage, asked } = listing(1005, 200);
    const items = await fetchAllPages(fetchPage);
    expect(items).toHaveLength(1005);
    expect(items).toEqual(Array.from({ length: 1005 }, (_, i) => i));
    expect(asked).toEqual([null, '200', '400', '600', '800', '1000']);
  });

  it('asks once for a listing that fits one page, or is empty', async () => {
    const one = listing(3, 200);
    expect(await fetchAllPages(one.fetchPage)).toEqual([0, 1, 2]);
    expect(one.asked).toEqual([null]);
    expect(await fetchAllPages(listing(0, 200).fetchPage)).toEqual([]);
  });

  it('refuses a cursor that repeats instead of looping', async () => {
    await expect(fetchAllPages(async () => ({ items: [1], next_cursor: 'same' }))).rejects.toThrow(/cursor same twice/);
  });
});
