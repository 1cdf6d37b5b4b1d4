/**
 * Reading a list of blobs in order with several requests in flight: the rebuild folds entry after
 * entry, and each S3 GetObject is a round trip to the bucket it need not wait for one by one.
 */

/**
 * `read(keys[i])` for every key in order, up to `window` requests in flight ahead of the consumer.
 * A failed read surfaces when its turn comes (as a sequential read would); the others are awaited
 * quietly so no rejection goes unhandled.
 */
export function readAhead<T>(keys: readonly string[], read: (key: string) => Promise<T>, window: number): { next(): Promise<T> } {
  const pending: Promise<T>[] = [];
  let requested = 0;
  let taken = 0;
  const fill = () => {
    while (requested < keys.length && requested - taken < window) {
      const promise = read(keys[requested++]!);
      promise.catch(() => undefined);
      pending.push(promise);
    }
  };
  return {
    next() {
      if (taken >= keys.length) throw new Error('readAhead: every key was read already');
      fill();
      const promise = pending.shift()!;
      taken++;
      fill();
      return promise;
    },
  };
}
