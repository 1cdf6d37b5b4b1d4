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

/** The index's phrase for a term: its folded words' tokens, in order. */
export function indexPhrase(term: { words: readonly string[]; prefix: boolean; fragment: boolean }): IndexPhrase {
  if (term.fragment) return { tokens: [], prefix: false, exact: false };
  const tokens = term.words.flatMap(indexTokens);
  const pure = term.words.every((w) => w.length > 0 && [...w].every((ch) => isWordChar(ch)));
  const last = term.words.at(-1) ?? '';
  const endsInWord = isWordChar([...last].at(-1));
  return { tokens, prefix: term.prefix && endsInWord, exact: pure };
}
