import { describe, expect, it } from 'vitest';
import { seededPrng } from '@/lib/demo/clock';
import { firstInOrder } from './first-in-order';

describe('firstInOrder', () => {
  it('is the head of a stable sort, for any count, ties kept in input order', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const random = seededPrng(seed);
      // Keys with many ties; the index shows which of two tied items came first.
      const items = Array.from({ length: random.int(0, 300) }, (_, index) => ({ key: random.int(0, 20), index }));
      const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;
      const sorted = [...items].sort(byKey);
      for (const count of [0, 1, 2, 7, 25, items.length - 1, items.length, items.length + 5]) {
        expect(firstInOrder(items, count, byKey), `seed ${seed}, count ${count}`).toEqual(sorted.slice(0, Math.max(0, count)));
      }
    }
  });
});
