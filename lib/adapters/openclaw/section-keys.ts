/**
 * A changed file's section keys, with the keys of its sections that did not change taken from the
 * file's previous keying instead of hashed again (a 1% edit of a large store changes ~1.5 of a
 * file's 100 sections; hashing every section was most of keying the changed files).
 *
 * A key is a function of the file key and of the section's lines, heading, content and occurrence
 * (records.ts `sectionKey`). So a section whose file key, line numbers, heading and content are a
 * previous section's, and whose occurrence is too, has that section's key: exactly, not as a guess.
 * The occurrence (of its trimmed content among the file's earlier sections) is the same when every
 * earlier section with that trimmed content is one of the pairs of identical sections on both
 * sides: no section that changed, came or went before it, in either version, has that content.
 * Pairs are found by line number, in order (an edit that moves later lines moves their keys too).
 */
import type { Section } from '@/lib/core/markdown';
import { rustTrimEnd } from '@/lib/core/rust-str';

/** The keys a previous keying gave its sections, by index (a stored record table read row by row, or an array). */
export interface KeySource {
  readonly length: number;
  key(k: number): string;
}

export const arrayKeys = (keys: readonly string[]): KeySource => ({ length: keys.length, key: (k) => keys[k]! });

/** A file's previous keying: its sections then, and the keys they had, alike. */
export interface PreviousSections {
  sections: readonly Section[];
  keys: KeySource;
}

/**
 * The keys of `sections` (their trimmed contents and occurrences alike), each either the previous
 * key of the identical section or `keyOf(i)`; null when `previous` is not the keying its keys came
 * from (another count, or the first key taken over is not what `keyOf` gives: a caller that sees
 * null keys every section). `computed`: how many keys `keyOf` made. `taken[i]`: the previous
 * section whose key section i took over, else -1 — and then `keys[i]` is left for the caller to
 * read from `previous.keys` when it needs it (but for the one checked): a sync that carries such a
 * section's record over unread needs no key of it at all.
 */
export function reusedSectionKeys(args: {
  sections: readonly Section[];
  occurrences: readonly { trimmed: string; occurrence: number }[];
  previous: PreviousSections;
  keyOf: (i: number) => string;
}): { keys: (string | undefined)[]; computed: number; taken: Int32Array; alone: (i: number) => boolean } | null {
  const { sections, occurrences, previous, keyOf } = args;
  const before = previous.sections;
  if (before.length !== previous.keys.length) return null;
  const keys: (string | undefined)[] = new Array(sections.length);
  const taken = new Int32Array(sections.length).fill(-1);
  // Trimmed contents of the sections without an identical pair so far, on either side.
  const unpaired = new Set<string>();
  // Those of the previous sections not taken over (for `alone`).
  const left: string[] = [];
  let computed = 0;
  let checked = false;
  let k = 0;
  for (let i = 0; i < sections.length; i++) {
    const section = sections[i]!;
    while (k < before.length && before[k]!.lineStart < section.lineStart) {
      const trimmed = rustTrimEnd(before[k++]!.content);
      unpaired.add(trimmed);
      left.push(trimmed);
    }
    const trimmed = occurrences[i]!.trimmed;
    const old = before[k];
    if (old === undefined || !sameSection(old, section)) {
      keys[i] = keyOf(i);
      computed++;
      unpaired.add(trimmed);
      continue;
    }
    const from = k++;
    if (unpaired.size > 0 && unpaired.has(trimmed)) {
      keys[i] = keyOf(i);
      computed++;
      left.push(trimmed);
    } else if (!checked) {
      // The first key taken over is made anyway: a previous keying that is not this file's (or
      // another file key: its line-2 tags changed) shows here, and every key is made instead.
      checked = true;
      computed++;
      const key = keyOf(i);
      if (key !== previous.keys.key(from)) return null;
      keys[i] = key;
      taken[i] = from;
    } else {
      taken[i] = from;
    }
  }
  // The previous version's contents that `alone` asks about, copied out of its text: the sync keeps
  // the answer's inputs to its end, and a slice of the previous text would keep all of it alive.
  const others = new Set<string>();
  for (const trimmed of left) others.add(ownCopy(trimmed));
  for (let j = k; j < before.length; j++) others.add(ownCopy(rustTrimEnd(before[j]!.content)));
  let alone: Uint8Array | null = null;
  return { keys, computed, taken, alone: (i) => (alone ??= aloneTaken(taken, occurrences, others))[i] === 1 };
}

/**
 * `text` in a string of its own (not a slice of a larger one, which it would keep in memory). Through
 * JSON, which gives back any string exactly (a lone surrogate too, which a UTF-8 round trip would not).
 */
const ownCopy = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/**
 * Per section: it took over a previous section's key, and its trimmed content is that of no other
 * section of the file, now or in the previous version (made on the first question: a sync asks
 * only about sections whose rows did not pair early). Without a map of every section's content:
 * now, a content is another section's when some section repeats it (an occurrence past the first);
 * then, every previous section with that content either was taken over too — by a section that
 * has it now — or was not: those left (a changed file's few changed sections) are all looked at:
 * `others`, the trimmed contents `reusedSectionKeys` passed over and those of the previous
 * sections its walk did not reach.
 */
function aloneTaken(taken: Int32Array, occurrences: readonly { trimmed: string; occurrence: number }[], others: ReadonlySet<string>): Uint8Array {
  const alone = new Uint8Array(taken.length);
  const repeated = new Set<string>();
  for (const { trimmed, occurrence } of occurrences) if (occurrence > 0) repeated.add(trimmed);
  for (let i = 0; i < taken.length; i++) {
    const trimmed = occurrences[i]!.trimmed;
    if (taken[i]! >= 0 && !repeated.has(trimmed) && !others.has(trimmed)) alone[i] = 1;
  }
  return alone;
}

function sameSection(a: Section, b: Section): boolean {
  return a.lineStart === b.lineStart && a.lineEnd === b.lineEnd && a.heading === b.heading && a.content === b.content;
}
