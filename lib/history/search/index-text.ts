/**
 * The text the word index (`record_versions_words`, migration 0015) holds for a version, and the
 * tokens a query asks it for: our own tokens, so that the index finds exactly what the matcher
 * (match.ts) finds wherever a query is made of whole words.
 *
 * SQLite's tokenizer (unicode61) does not split text as we do: it takes unassigned code points for
 * letters, it does not know letters newer than its tables, and it folds a few characters
 * differently (measured over every code point by index-text.test.ts). So the index is never given
 * content as it is. The content is folded (fold.ts) and cut into our tokens, maximal runs of word
 * characters, and written as:
 * - a word character below U+0370 as itself: there SQLite and we agree on every code point (letter,
 *   digit or mark, and its fold), which the test checks;
 * - any other word character as `α<hex>ω` inside its token: Greek letters, which SQLite keeps in the
 *   token and folds to themselves, and which never stand for themselves in the index (U+03B1 is
 *   written `α3b1ω` too), so the form is read back one way only;
 * - every character that is neither a word character nor white space as a token of its own,
 *   `α<hex>ω` (a word token holds only word characters' codes, so the two never meet);
 * - white space as one space between tokens.
 * Two of our tokens are then adjacent in the index exactly when only white space parts them in the
 * content, and the index's tokens are our tokens, one for one. A query word or phrase made of word
 * characters (`rolled back`, `redis`, `redi*`) is thus answered exactly by the index; one holding
 * punctuation (`10.20.0.5`) or a fragment matched inside words is answered by a superset that the
 * matcher then filters (the index forgets where the white space between punctuation was).
 */
import { foldCase, isWordChar } from './fold';
import { hangulType } from './match';

/** The characters not written as themselves: punctuation and symbols (neither word nor space), and any from U+0370 on. */
const REWRITTEN = /[^\s\p{L}\p{N}\p{M}]|[^\u0000-\u036f]/gu;
const SPACE = /\s/u;

function rewrite(ch: string): string {
  if (isWordChar(ch)) return `α${ch.codePointAt(0)!.toString(16)}ω`;
  if (SPACE.test(ch)) return ch;
  return ` α${ch.codePointAt(0)!.toString(16)}ω `;
}

/** Folded text as the index holds it: tokens parted by white space (SQLite skips any run of it). */
function indexForm(folded: string): string {
  return folded.replace(REWRITTEN, rewrite);
}

/** What the word index holds for a version's content. */
export function indexText(content: string): string {
  return indexForm(foldCase(content));
}

/** The index's tokens of folded text, in order. */
export function indexTokens(folded: string): string[] {
  return indexForm(folded).split(/\s+/u).filter((t) => t.length > 0);
}

export interface IndexPhrase {
  /** The index's tokens of the term, in order (empty when nothing of it can be asked). */
  tokens: string[];
  /** The last token is a prefix (`word*` ending in a word character). */
  prefix: boolean;
  /** The index answers the term exactly: whole words only, no fragment, no punctuation. */
  exact: boolean;
}

const MARK = /\p{M}/u;
let marks: string[] | undefined;
const takes = new Map<string, boolean>();

/**
 * Whether some combining mark after `cluster` (a character and its marks) would make the two not
 * end where they did under canonical equivalence — the mark composes with it (`e` + U+0301 → `é`;
 * `é` + U+0323 → `ẹ` + U+0301) or goes before its marks — so that a prefix ending with `cluster`
 * would match across the mark in one form and not in the other (match.ts `splitsCharacter`). Asked
 * of every mark (Unicode's own tables: the runtime's NFC), once per cluster.
 */
export function takesComposingMark(cluster: string): boolean {
  let answer = takes.get(cluster);
  if (answer === undefined) {
    if (!marks) {
      marks = [];
      for (let cp = 0x300; cp < 0x20000; cp++) {
        const ch = String.fromCodePoint(cp);
        if (MARK.test(ch)) marks.push(ch);
      }
    }
    const composed = cluster.normalize('NFC');
    answer = marks.some((m) => `${cluster}${m}`.normalize('NFC') !== composed + m.normalize('NFC'));
    if (takes.size < 4096) takes.set(cluster, answer);
  }
  return answer;
}

/** The last character of `word` with the marks after it. */
function lastCluster(word: string): string {
  const chars = [...word];
  let k = chars.length - 1;
  while (k > 0 && MARK.test(chars[k]!)) k--;
  return chars.slice(Math.max(k, 0)).join('');
}

/**
 * The index's phrase for a term: its folded words' tokens, in order. A prefix ending in a character
 * a mark may compose with (`cafe*`) is not answered exactly: the index's `cafe*` takes a decomposed
 * `café` (`cafe` U+0301), which the matcher refuses as composed `café` is (a prefix never ends inside a character).
 * Nor is one ending in Hangul (a jamo or a syllable): a jamo after it may be of its syllable block
 * (`하*` and `한` written `하` + `ᆫ` or `ᄒ ᅡ ᆫ`; match.ts `joinsHangul`).
 */
export function indexPhrase(term: { words: readonly string[]; prefix: boolean; fragment: boolean }): IndexPhrase {
  if (term.fragment) return { tokens: [], prefix: false, exact: false };
  const tokens = term.words.flatMap(indexTokens);
  const pure = term.words.every((w) => w.length > 0 && [...w].every((ch) => isWordChar(ch)));
  const last = term.words.at(-1) ?? '';
  const prefix = term.prefix && isWordChar([...last].at(-1));
  const joinable = prefix && (takesComposingMark(lastCluster(last)) || hangulType([...last].at(-1)) !== undefined);
  return { tokens, prefix, exact: pure && !joinable };
}
