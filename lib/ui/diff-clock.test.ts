import DiffMatchPatch from 'diff-match-patch';
import { afterEach, describe, expect, it } from 'vitest';
import { clockFreeDiff } from './diff-clock';
import { lineDiff, wordDiff } from './diff';

/** A deterministic PRNG (mulberry32), so a failing pair can be found again. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A text over a small alphabet and an edited copy of it: insertions, deletions and replacements. */
function pair(random: () => number): [string, string] {
  const alphabet = 'abcde \n';
  const length = Math.floor(random() * 120);
  let before = '';
  for (let i = 0; i < length; i++) before += alphabet[Math.floor(random() * alphabet.length)];
  let after = '';
  for (const ch of before) {
    const roll = random();
    if (roll < 0.08) continue;
    if (roll < 0.16) after += alphabet[Math.floor(random() * alphabet.length)];
    else after += ch;
    if (random() < 0.05) after += 'xyz'.slice(0, 1 + Math.floor(random() * 3));
  }
  return [before, after];
}

const RealDate = globalThis.Date;

/** As Next.js patches the server's `Date`: counts the clock reads (`new Date()`, `Date()`, `Date.now()`). */
function countClockReads(): { reads: number } {
  const counter = { reads: 0 };
  const Counting = function (this: unknown, ...args: unknown[]) {
    if (new.target === undefined) {
      counter.reads += 1;
      return RealDate();
    }
    if (args.length === 0) counter.reads += 1;
    return Reflect.construct(RealDate, args, new.target);
  } as unknown as DateConstructor;
  Object.defineProperties(Counting, Object.getOwnPropertyDescriptors(RealDate));
  Counting.now = () => {
    counter.reads += 1;
    return RealDate.now();
  };
  globalThis.Date = Counting;
  return counter;
}

afterEach(() => {
  globalThis.Date = RealDate;
});

describe('clockFreeDiff', () => {
  it('diffs exactly as the stock diff-match-patch does (2,000 seeded pairs, and long texts)', () => {
    const random = prng(20);
    const stock = new DiffMatchPatch();
    const { diffMain } = clockFreeDiff();
    for (let i = 0; i < 2000; i++) {
      const [before, after] = pair(random);
      expect(diffMain(before, after), `pair ${i}`).toEqual(stock.diff_main(before, after, false));
    }
    const long = 'the gateway moved to the other rack. '.repeat(200);
    const edited = long.replace(/other/g, (m, at: number) => (at % 3 === 0 ? 'third' : m)).slice(40) + 'tail';
    expect(diffMain(long, edited)).toEqual(stock.diff_main(long, edited, false));
  });

  it('reads no clock through Date: Next.js counts every such read as request IO', () => {
    const counter = countClockReads();
    const before = 'The gateway runs on 10.0.0.4, port 8080.\nBackups at 02:00 on the NAS.\nPrefer tabs.';
    const after = 'The gateway now runs on 10.0.0.7, port 8080!\nBackups at 03:00 on the new NAS.\nPrefer spaces.';
    const segments = wordDiff(before, after);
    const lines = lineDiff(`${before}\nkept`, `${after}\nkept`);
    expect(segments.some((s) => s.op === 'insert')).toBe(true);
    expect(lines.some((l) => l.op === 'delete')).toBe(true);
    expect(counter.reads).toBe(0);
    // The counter itself counts: the stock library reads Date on every step of its bisection.
    new DiffMatchPatch().diff_main('abcdef', 'azcyef', false);
    expect(counter.reads).toBeGreaterThan(0);
  });
});
