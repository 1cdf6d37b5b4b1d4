/**
 * The search language: unquoted words (each a whole token, all in the same version, any order;
 * `word*` a prefix; a word of one or two characters a fragment, found inside words too — quote it,
 * `"ül"`, for the whole token) and quoted phrases (exact, whole tokens, runs of whitespace equal).
 * Canonically equivalent text is the same text: `é` typed as one code point (U+00E9) or as `e` and a
 * combining acute (U+0301) finds a memory holding either, as a term is asked for in its composed
 * (NFC) and decomposed (NFD) forms (a memory mixing the two inside one character, `ệ` as `ê` + U+0323,
 * is found by neither). A prefix, like a fragment, ends only between whole characters: one that stops
 * before a combining mark composing with its last character matches across it in neither form, so
 * `cafe*` finds no `café` (composed, it does not start with `cafe`; decomposed, `cafe` is cut inside
 * `é`), while `caf*` and `café*` find both; nor does one (or a fragment) start or end inside a Hangul
 * syllable, composed or written in jamo: `하*` finds no `한`, `한*` finds it in either form. Nothing else is syntax:
 * parentheses, colons, carets, `OR`, `NEAR` are text to find, and a quote without its partner is
 * ignored. A query the engine cannot take is a LedgerError('invalid_input') saying why in words.
 */
import { LedgerError } from '@/lib/ledger/errors';
import { foldCase } from './fold';

export const MAX_QUERY_CHARS = 500;

export interface QueryTerm {
  /** As typed: the word, or the phrase's text without its quotes. */
  text: string;
  /** Folded words, composed (NFC); a phrase has one or more, a word exactly one. */
  words: string[];
  /** The folded words in each canonical form a memory may hold them in: `words` (NFC) first, then NFD when it differs. */
  forms: string[][];
  phrase: boolean;
  /** `word*`: matches a token that starts with the word. */
  prefix: boolean;
  /** An unquoted word of one or two characters: matches inside words too (`ül` finds `MÜLLER`). */
  fragment: boolean;
}

export interface ParsedQuery {
  /** The query as given, trimmed. */
  text: string;
  terms: QueryTerm[];
}

const QUOTES = /["\u201C\u201D\u201E]/;
const SPACE = /\s+/u;

/** `words` folded in their composed form, and in their decomposed form when that differs. */
export function canonicalForms(words: readonly string[]): string[][] {
  const composed = words.map((w) => foldCase(w.normalize('NFC')));
  const decomposed = words.map((w) => foldCase(w.normalize('NFD')));
  return decomposed.every((w, i) => w === composed[i]) ? [composed] : [composed, decomposed];
}

function wordTerm(raw: string): QueryTerm {
  const prefix = raw.length > 1 && raw.endsWith('*');
  const text = prefix ? raw.slice(0, -1) : raw;
  const forms = canonicalForms([text]);
  // Counted composed: `é` is one character however it was typed.
  return { text: raw, words: forms[0]!, forms, phrase: false, prefix, fragment: !prefix && [...text.normalize('NFC')].length <= 2 };
}

function phraseTerm(raw: string): QueryTerm | null {
  const words = raw.split(SPACE).filter((w) => w.length > 0);
  if (words.length === 0) return null;
  const forms = canonicalForms(words);
  return { text: words.join(' '), words: forms[0]!, forms, phrase: true, prefix: false, fragment: false };
}

/** Splits a query into terms; throws on a query that holds nothing to search for. */
export function parseSearchQuery(input: string | undefined | null): ParsedQuery {
  const q = (input ?? '').trim();
  if (q.length === 0) throw new LedgerError('invalid_input', 'Type something to search for: the query is empty.');
  if (q.includes('\0')) throw new LedgerError('invalid_input', 'The query contains a NUL character, which no memory can contain; remove it and search again.');
  if ([...q].length > MAX_QUERY_CHARS) {
    throw new LedgerError('invalid_input', `The query is too long: at most ${MAX_QUERY_CHARS} characters, this one has ${[...q].length}.`);
  }
  const terms: QueryTerm[] = [];
  // Quote characters split the query into alternating outside/inside parts; an odd last quote
  // has no partner, so the text after it counts as outside.
  const parts = q.split(QUOTES);
  const paired = parts.length % 2 === 1 ? parts.length : parts.length - 1;
  parts.forEach((part, i) => {
    const inside = i % 2 === 1 && i < paired;
    if (inside) {
      const term = phraseTerm(part);
      if (term) terms.push(term);
    } else {
      for (const raw of part.split(SPACE)) if (raw.length > 0) terms.push(wordTerm(raw));
    }
  });
  if (terms.length === 0) throw new LedgerError('invalid_input', 'The query has no words to search for, only quotes.');
  return { text: q, terms };
}

/** The query text of `terms` (phrases quoted), as a suggestion link would search it. */
export function formatQuery(terms: readonly Pick<QueryTerm, 'text' | 'phrase'>[]): string {
  return terms.map((t) => (t.phrase ? `"${t.text}"` : t.text)).join(' ');
}
