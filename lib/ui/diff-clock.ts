/**
 * A diff-match-patch instance that never reads `Date`. The library checks its deadline with
 * `new Date()` on every step of its bisection, even with no timeout; on the server, Next.js replaces
 * the global `Date` with a wrapper that records each clock read as request IO (two async-storage
 * lookups per call), which cost ~0.7 ms of word diffs per lineage document. Here the deadline is on
 * `performance.now()`, which Next leaves alone, and the bisection is the library's own (1.0.5,
 * `diff_bisect_`, Apache-2.0, Copyright 2018 The diff-match-patch Authors) with only that read
 * changed, so the diffs are the same (`diff-clock.test.ts` holds them to the stock library's).
 */
import DiffMatchPatch from 'diff-match-patch';

type Diff = DiffMatchPatch.Diff;

/** The library's internals the bisection calls, which its type declarations leave out. */
type Internals = DiffMatchPatch & { diff_bisectSplit_(text1: string, text2: string, x: number, y: number, deadline: number): Diff[] };
/** The library's own tuple class (its cleanups build more of them). */
const DiffTuple = (DiffMatchPatch as unknown as { Diff: new (op: number, text: string) => Diff }).Diff;

/** The library's default `Diff_Timeout` (1 s): past it a bisection gives up and replaces the rest whole. */
const TIMEOUT_MS = 1000;

/** Myers' middle snake, as `diff_match_patch.prototype.diff_bisect_`, with the deadline on `performance.now()`. */
function bisect(this: Internals, text1: string, text2: string, deadline: number): Diff[] {
  const length1 = text1.length;
  const length2 = text2.length;
  const maxD = Math.ceil((length1 + length2) / 2);
  const offset = maxD;
  const vLength = 2 * maxD;
  const v1 = new Array<number>(vLength).fill(-1);
  const v2 = new Array<number>(vLength).fill(-1);
  v1[offset + 1] = 0;
  v2[offset + 1] = 0;
  const delta = length1 - length2;
  // With an odd total the front path is the one that collides with the reverse path.
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    if (performance.now() > deadline) break;
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1Offset = offset + k1;
      let x1 = k1 === -d || (k1 !== d && v1[k1Offset - 1]! < v1[k1Offset + 1]!) ? v1[k1Offset + 1]! : v1[k1Offset - 1]! + 1;
      let y1 = x1 - k1;
      while (x1 < length1 && y1 < length2 && text1.charAt(x1) === text2.charAt(y1)) {
        x1++;
        y1++;
      }
      v1[k1Offset] = x1;
      if (x1 > length1) k1end += 2;
      else if (y1 > length2) k1start += 2;
      else if (front) {
        const k2Offset = offset + delta - k1;
        if (k2Offset >= 0 && k2Offset < vLength && v2[k2Offset] !== -1) {
          if (x1 >= length1 - v2[k2Offset]!) return this.diff_bisectSplit_(text1, text2, x1, y1, deadline);
        }
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2Offset = offset + k2;
      let x2 = k2 === -d || (k2 !== d && v2[k2Offset - 1]! < v2[k2Offset + 1]!) ? v2[k2Offset + 1]! : v2[k2Offset - 1]! + 1;
      let y2 = x2 - k2;
      while (x2 < length1 && y2 < length2 && text1.charAt(length1 - x2 - 1) === text2.charAt(length2 - y2 - 1)) {
        x2++;
        y2++;
      }
      v2[k2Offset] = x2;
      if (x2 > length1) k2end += 2;
      else if (y2 > length2) k2start += 2;
      else if (!front) {
        const k1Offset = offset + delta - k2;
        if (k1Offset >= 0 && k1Offset < vLength && v1[k1Offset] !== -1) {
          const x1 = v1[k1Offset]!;
          const y1 = offset + x1 - k1Offset;
          if (x1 >= length1 - x2) return this.diff_bisectSplit_(text1, text2, x1, y1, deadline);
        }
      }
    }
  }
  // Out of time, or nothing in common at all.
  return [new DiffTuple(DiffMatchPatch.DIFF_DELETE, text1), new DiffTuple(DiffMatchPatch.DIFF_INSERT, text2)];
}

/** A diff-match-patch whose `diff_main` calls run without a clock read other than `performance.now()`. */
export interface ClockFreeDiff {
  dmp: DiffMatchPatch;
  /** `dmp.diff_main(a, b, false)` with the library's default timeout, measured on `performance.now()`. */
  diffMain(a: string, b: string): Diff[];
}

export function clockFreeDiff(): ClockFreeDiff {
  const dmp = new DiffMatchPatch();
  dmp.diff_bisect_ = bisect;
  // An explicit deadline keeps diff_main from computing its own with `new Date()`; recursive calls pass it on.
  return { dmp, diffMain: (a, b) => dmp.diff_main(a, b, false, performance.now() + TIMEOUT_MS) };
}
