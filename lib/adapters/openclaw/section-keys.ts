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

/** A file's previous keying: its sections then, and the keys they had, alike. */
export interface PreviousSections {
  sections: readonly Section[];
  keys: readonly string[];
}

/**
 * The keys of `sections` (their trimmed contents and occurrences alike), each either the previous
 * key of the identical section or `keyOf(i)`; null when `previous` is not the keying its keys came
 * from (another count, or the first key taken over is not what `keyOf` gives: a caller that sees
 * null keys every section). `computed`: how many keys `keyOf` made.
 */
export function reusedSectionKeys(args: {
  sections: readonly Section[];
  occurrences: readonly { trimmed: string; occurrence: number }[];
  previous: PreviousSections;
  keyOf: (i: number) => string;
}): { keys: string[]; computed: number } | null {
  const { sections, occurrences, previous, keyOf } = args;
  const before = previous.sections;
  if (before.length !== previous.keys.length) return null;
  const keys: string[] = new Array(sections.length);
  // Trimmed contents of the sections without an identical pair so far, on either side.
  const unpaired = new Set<string>();
  let computed = 0;
  let checked = false;
  let k = 0;
  for (let i = 0; i < sections.length; i++) {
    const section = sections[i]!;
    while (k < before.length && before[k]!.lineStart < section.lineStart) unpaired.add(rustTrimEnd(before[k++]!.content));
    const trimmed = occurrences[i]!.trimmed;
    const old = before[k];
    if (old === undefined || !sameSection(old, section)) {
      keys[i] = keyOf(i);
      computed++;
      unpaired.add(trimmed);
      continue;
    }
    const key = previous.keys[k++]!;
    if (unpaired.size > 0 && unpaired.has(trimmed)) {
      keys[i] = keyOf(i);
      computed++;
    } else if (!checked) {
      // The first key taken over is made anyway: a previous keying that is not this file's (or
      // another file key: its line-2 tags changed) shows here, and every key is made instead.
      checked = true;
      computed++;
      if (keyOf(i) !== key) return null;
      keys[i] = key;
    } else {
      keys[i] = key;
    }
  }
  return { keys, computed };
}

function sameSection(a: Section, b: Section): boolean {
  return a.lineStart === b.lineStart && a.lineEnd === b.lineEnd && a.heading === b.heading && a.content === b.content;
}
