/**
 * `firstInPlaceOrder` (compare-chains.ts): the first `limit` entries in (file, heading, id) order,
 * kept in a sorted window when the page is small beside the list — the same entries, in the same
 * order, as sorting the whole list and taking its head, for any limit.
 */
import { describe, expect, it } from 'vitest';
import { seededPrng } from '@/lib/demo/clock';
import { firstInPlaceOrder, type Keyed } from './compare-chains';

/** Entries sharing few files and headings (ties broken further down), ids unique, in random order. */
function entries(n: number, seed: number): Keyed<string>[] {
  const random = seededPrng(seed);
  return Array.from({ length: n }, (_, i) => {
    const id = `${String(random.int(0, 999_999)).padStart(6, '0')}-${i}`;
    return { file: random.pick(['', 'b.md', 'a/b.md', 'a.md', 'é.md', '😀.md', '\uffff.md']), heading: random.pick(['', 'x', 'X', 'x y', '😀']), id, value: id };
  });
}

const wholeSort = (list: Keyed<string>[]) => {
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...list].sort((a, b) => text(a.file, b.file) || text(a.heading, b.heading) || text(a.id, b.id)).map((k) => k.value);
};

describe('the first entries of a comparison in place order', () => {
  it('are the head of the whole list sorted, for every limit, small and large', () => {
    for (const [n, seed] of [[0, 1], [1, 2], [7, 3], [300, 4], [2000, 5]] as const) {
      const list = entries(n, seed);
      const sorted = wholeSort(list);
      for (const limit of [1, 2, 3, 25, 74, 75, 76, 200, 500, 2000, 5000]) {
        expect(firstInPlaceOrder(list, limit), `n ${n}, limit ${limit}`).toEqual(sorted.slice(0, limit));
      }
    }
  });
});
