/**
 * The exact matcher: whether a version's content holds every term of a query, and where. A term
 * that starts (ends) with a letter or digit matches only where the content has no letter or digit
 * just before (after) it; a prefix term has no end boundary, a fragment (an unquoted word of one or
 * two characters) none at all. Matching runs on folded text, which
 * keeps offsets (fold.ts), so the ranges it returns index the original content.
 */
import { charAt, charBefore, foldCase, isWordChar } from './fold';
import type { QueryTerm } from './parse-query';

export type Range = readonly [start: number, end: number];

interface CompiledTerm {
  pattern: RegExp;
  startBoundary: boolean;
  endBoundary: boolean;
  /**
   * A fragment or a prefix never starts or ends inside a character (`splitsCharacter`): `e` is not
   * found in `é`, nor `cafe*` in `café`, nor `하*` or `ᄒ*` in `한`, however `é` or `한` is written — as in
   * its composed form, where none could match.
   */
  wholeCharacters: boolean;
}

const MARK = /\p{M}/u;

type HangulType = 'L' | 'V' | 'T' | 'LV' | 'LVT';

/**
 * A code point's Hangul_Syllable_Type (Unicode's HangulSyllableType.txt, a stable property): leading
 * (L), vowel (V) and trailing (T) conjoining jamo, modern (U+1100–11FF) and old (U+A960–A97C,
 * U+D7B0–D7FB), and the precomposed syllables (LV, LVT: U+AC00–D7A3). Undefined for any other.
 */
export function hangulType(ch: string | undefined): HangulType | undefined {
  if (ch === undefined) return undefined;
  const cp = ch.codePointAt(0)!;
  if (cp < 0x1100 || cp > 0xd7fb) return undefined;
  if (cp <= 0x115f || (cp >= 0xa960 && cp <= 0xa97c)) return 'L';
  if (cp <= 0x11a7 || (cp >= 0xd7b0 && cp <= 0xd7c6)) return 'V';
  if (cp <= 0x11ff || (cp >= 0xd7cb && cp <= 0xd7fb)) return 'T';
  if (cp >= 0xac00 && cp <= 0xd7a3) return (cp - 0xac00) % 28 === 0 ? 'LV' : 'LVT';
  return undefined;
}

/**
 * Whether two Hangul code points belong to one syllable block (UAX #29 GB6–GB8: L × L V LV LVT,
 * LV V × V T, LVT T × T) — `ᄒ` + `ᅡ` + `ᆫ` is `한` (NFC composes the modern ones; an old jamo's block,
 * which NFC leaves in pieces, is one character to a reader all the same).
 */
export function joinsHangul(before: string | undefined, after: string | undefined): boolean {
  const b = hangulType(before);
  const a = b && hangulType(after);
  if (!a) return false;
  if (b === 'L') return a !== 'T';
  if (b === 'LV' || b === 'V') return a === 'V' || a === 'T';
  return a === 'T';
}

/**
 * Whether UTF-16 offset `at` of `text` falls inside one character as canonical equivalence sees it:
 * a mark starts there that composes with what is before it (`e` + U+0301 → `é`; `ü` written
 * `u` U+0308, then U+0301 → `ǘ`), so the text composed (NFC) has no boundary there; or it parts the
 * jamo of one Hangul syllable block (`joinsHangul`: `한` written `ᄒ ᅡ ᆫ`, or `하` + `ᆫ`). `क` + U+093F,
 * which no precomposed character joins, is two characters either way.
 */
export function splitsCharacter(text: string, at: number): boolean {
  const after = charAt(text, at);
  if (after === undefined) return false;
  if (!MARK.test(after)) return joinsHangul(charBefore(text, at), after);
  // The run around `at`: back to the character the marks belong to, on over the marks after it.
  let start = at;
  while (start > 0) {
    const ch = charBefore(text, start)!;
    start -= ch.length;
    if (!MARK.test(ch)) break;
  }
  let end = at;
  for (let ch = charAt(text, end); ch !== undefined && MARK.test(ch); ch = charAt(text, end)) end += ch.length;
  const left = text.slice(start, at);
  if (left.length === 0) return false;
  return text.slice(start, end).normalize('NFC') !== left.normalize('NFC') + text.slice(at, end).normalize('NFC');
}

// Syntax characters only: in a `u` regex any other escaped character is an error.
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function compileTerm(term: QueryTerm): CompiledTerm {
  const first = term.words[0]!;
  const last = term.words.at(-1)!;
  return {
    // One alternative per canonical form (parse-query.ts); their first and last characters are alike word characters or not.
    pattern: new RegExp(term.forms.map((words) => words.map(escape).join('\\s+')).join('|'), 'gu'),
    startBoundary: !term.fragment && isWordChar(charAt(first, 0)),
    endBoundary: !term.fragment && !term.prefix && isWordChar(charBefore(last, last.length)),
    wholeCharacters: term.fragment || term.prefix,
  };
}

/** Every place `t` matches in the folded content (overlapping starts included). */
function termRanges(t: CompiledTerm, folded: string, firstOnly: boolean): Range[] {
  const out: Range[] = [];
  t.pattern.lastIndex = 0;
  for (let m = t.pattern.exec(folded); m !== null; m = t.pattern.exec(folded)) {
    const start = m.index;
    const end = start + m[0].length;
    const after = charAt(folded, end);
    const ok = (!t.startBoundary || !isWordChar(charBefore(folded, start))) && (!t.endBoundary || !isWordChar(after))
      && (!t.wholeCharacters || (!splitsCharacter(folded, start) && !splitsCharacter(folded, end)));
    if (ok) {
      out.push([start, end]);
      if (firstOnly) break;
    }
    // Retry from the next code point: a refused match may overlap an accepted one ("aa" in "baa aa").
    t.pattern.lastIndex = start + (folded.codePointAt(start)! > 0xffff ? 2 : 1);
  }
  return out;
}

export interface Matcher {
  /** Whether the content holds every term. */
  test(content: string): boolean;
  /** Every range where a term matches, sorted and merged; empty when a term is missing. */
  ranges(content: string): Range[];
}

export function compileMatcher(terms: readonly QueryTerm[]): Matcher {
  const compiled = terms.map(compileTerm);
  return {
    test(content) {
      const folded = foldCase(content);
      return compiled.every((t) => termRanges(t, folded, true).length > 0);
    },
    ranges(content) {
      const folded = foldCase(content);
      const all: Range[] = [];
      for (const t of compiled) {
        const found = termRanges(t, folded, false);
        if (found.length === 0) return [];
        all.push(...found);
      }
      return mergeRanges(all);
    },
  };
}

export function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}
