/**
 * The first `count` items of `items` in `compare`'s order, kept in a sorted window as they come: a
 * page of a few dozen out of thousands costs about one comparison per item after the window fills,
 * instead of sorting every item. Items the order ties keep their input order (a stable sort's head).
 * Used where a page is small beside the list: the search's first appearances (search/order.ts) and
 * the compare's first entries of each kind (compare-chains.ts).
 */
export function firstInOrder<T>(items: Iterable<T>, count: number, compare: (a: T, b: T) => number): T[] {
  const head: T[] = [];
  if (count <= 0) return head;
  for (const item of items) {
    if (head.length === count && compare(item, head[count - 1]!) >= 0) continue;
    let lo = 0;
    let hi = head.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(head[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    head.splice(lo, 0, item);
    if (head.length > count) head.pop();
  }
  return head;
}
