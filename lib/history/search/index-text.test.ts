/**
 * The word index against the matcher, on our SQLite: SQLite's tokenizer agrees with us on every
 * character the index text holds as itself (measured over all of them), and over random texts the
 * index answers exactly what the matcher finds for whole-word queries, and a superset for the rest.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexQuery } from './candidates';
import { foldChar, isWordChar } from './fold';
import { indexText, indexTokens } from './index-text';
import { compileMatcher } from './match';
import { parseSearchQuery } from './parse-query';

/** A database with the word index as migration 0015 creates it. */
function wordIndex(): Database.Database {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE record_versions_words USING fts5(words, content='', contentless_delete=1,
    tokenize="unicode61 remove_diacritics 0 categories 'L* N* M*'")`);
  db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(record_versions_words, 'instance')");
  return db;
}

describe('the word index', () => {
  it("agrees with SQLite's tokenizer on every character it holds as itself, and on its escapes", () => {
    const db = wordIndex();
    const insert = db.prepare('INSERT INTO record_versions_words (rowid, words) VALUES (?, ?)');
    const spaces = [...'\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff'];
    db.transaction(() => {
      for (let cp = 1; cp < 0x370; cp++) insert.run(cp, `x${String.fromCodePoint(cp)}x`);
      spaces.forEach((s, i) => insert.run(0x10000 + i, `x${s}x`));
      insert.run(0x20000, 'abα3b1ω0123456789abcdefωα1f680ω');
    })();
    const tokens = new Map<number, string[]>();
    for (const [doc, term] of db.prepare('SELECT doc, term FROM v ORDER BY doc, "offset"').raw().all() as [number, string][]) {
      tokens.set(doc, [...(tokens.get(doc) ?? []), term]);
    }
    const disagree: string[] = [];
    for (let cp = 1; cp < 0x370; cp++) {
      const ch = String.fromCodePoint(cp);
      const want = isWordChar(ch) ? [`x${ch}x`] : ['x', 'x'];
      // A word character is written folded: SQLite must keep our fold as it is.
      if (isWordChar(ch) && foldChar(ch) !== ch) continue;
      if (JSON.stringify(tokens.get(cp)) !== JSON.stringify(want)) disagree.push(`U+${cp.toString(16)} → ${JSON.stringify(tokens.get(cp))}`);
    }
    spaces.forEach((s, i) => {
      if (JSON.stringify(tokens.get(0x10000 + i)) !== '["x","x"]') disagree.push(`space U+${s.codePointAt(0)!.toString(16)}`);
    });
    expect(disagree).toEqual([]);
    expect(tokens.get(0x20000)).toEqual(['abα3b1ω0123456789abcdefωα1f680ω']);
  });

  it('writes our tokens: folded, escaped past U+0370, punctuation as tokens of its own', () => {
    expect(indexText('Redis, rolled back.')).toBe('redis α2cω  rolled back α2eω ');
    expect(indexTokens('10.20.0.5')).toEqual(['10', 'α2eω', '20', 'α2eω', '0', 'α2eω', '5']);
    expect(indexTokens('οδος\u0378x')).toEqual(['α3bfωα3b4ωα3bfωα3c2ω', 'α378ω', 'x']);
    expect(indexTokens('α3b1ω')).toEqual(['α3b1ω3b1α3c9ω']);
  });

  it('says a query is not exact where the index forgets what the matcher checks: white space around punctuation, fragments', () => {
    const db = wordIndex();
    const docs = ['a.b', 'a . b', 'a .b', 'xab', 'rolled-back', 'rolled back'];
    const insert = db.prepare('INSERT INTO record_versions_words (rowid, words) VALUES (?, ?)');
    docs.forEach((d, i) => insert.run(i + 1, indexText(d)));
    const ask = (q: string) => {
      const query = indexQuery(parseSearchQuery(q).terms)!;
      const found = db.prepare('SELECT rowid FROM record_versions_words WHERE record_versions_words MATCH ? ORDER BY rowid').pluck().all(query.expression);
      return { exact: query.exact, found };
    };
    expect(ask('a.b')).toEqual({ exact: false, found: [1, 2, 3] });
    expect(ask('"rolled back"')).toEqual({ exact: true, found: [6] });
    expect(ask('rolled')).toEqual({ exact: true, found: [5, 6] });
    expect(ask('ab xab')).toEqual({ exact: false, found: [4] }); // `ab` is a fragment: not asked of the index
    expect(indexQuery(parseSearchQuery('ab').terms)).toBeNull();
  });

  it('says a prefix is not exact where a mark after it may join its last character: the index matches across it, the matcher does not', () => {
    const db = wordIndex();
    const docs = ['cafe\u0301', 'caf\u00e9', 'cafes', 'a\u00e9\u0323', '2026-11'];
    const insert = db.prepare('INSERT INTO record_versions_words (rowid, words) VALUES (?, ?)');
    docs.forEach((d, i) => insert.run(i + 1, indexText(d)));
    const ask = (q: string) => {
      const parsed = parseSearchQuery(q);
      const query = indexQuery(parsed.terms)!;
      const found = db.prepare('SELECT rowid FROM record_versions_words WHERE record_versions_words MATCH ? ORDER BY rowid').pluck().all(query.expression);
      const matcher = compileMatcher(parsed.terms);
      return { exact: query.exact, found, matched: docs.flatMap((d, i) => (matcher.test(d) ? [i + 1] : [])) };
    };
    expect(ask('cafe*')).toEqual({ exact: false, found: [1, 3], matched: [3] });
    expect(ask('caf*')).toEqual({ exact: false, found: [1, 2, 3], matched: [1, 2, 3] });
    // é then U+0323 is ẹ then U+0301 composed: `aé` ends inside it.
    expect(ask('a\u00e9*')).toMatchObject({ exact: false, matched: [] });
    // A digit takes no mark: still exact.
    expect(ask('2026*')).toEqual({ exact: true, found: [5], matched: [5] });
  });

  it('says a prefix ending in Hangul is not exact: a jamo after it may be of its syllable block, which the index matches across', () => {
    const db = wordIndex();
    // 한국 composed, 한국 in jamo, 하 + ᆫ (mixed), 하늘 (하 then a whole syllable).
    const docs = ['\uD55C\uAD6D', '\u1112\u1161\u11AB\u1100\u116E\u11A8', '\uD558\u11AB', '\uD558\uB298'];
    const insert = db.prepare('INSERT INTO record_versions_words (rowid, words) VALUES (?, ?)');
    docs.forEach((d, i) => insert.run(i + 1, indexText(d)));
    const ask = (q: string) => {
      const parsed = parseSearchQuery(q);
      const query = indexQuery(parsed.terms)!;
      const found = db.prepare('SELECT rowid FROM record_versions_words WHERE record_versions_words MATCH ? ORDER BY rowid').pluck().all(query.expression);
      const matcher = compileMatcher(parsed.terms);
      return { exact: query.exact, found, matched: docs.flatMap((d, i) => (matcher.test(d) ? [i + 1] : [])) };
    };
    expect(ask('\uD558*')).toEqual({ exact: false, found: [2, 3, 4], matched: [4] });
    expect(ask('\u1112*')).toEqual({ exact: false, found: [2], matched: [] });
    expect(ask('\uD55C*')).toEqual({ exact: false, found: [1, 2], matched: [1, 2] });
    // A whole word (quoted: two characters unquoted are a fragment) stays exact: the index's token is the whole word.
    expect(ask('"\uD55C\uAD6D"')).toEqual({ exact: true, found: [1, 2], matched: [1, 2] });
  });

  // Characters where SQLite and we part ways (unassigned U+0378, private use, letters SQLite's
  // tables lack, folds it does not make), our escape letters, and the everyday kind.
  const POOL = [...'abcAB01 .-_\n\u00a0', 'α', 'ω', 'Σ', 'ς', 'ſ', '\u212A', 'ẞ', 'ß', '\u0378', '\uE000', 'ꭰ', 'Ᏸ', '\u0301', '🚀', '中', 'İ', 'ı', '3b1',
    // Composed and decomposed forms of the same letters (queries are asked in both: parse-query.ts).
    'e', 'é', 'É', 'u', 'ü', '\u0308', 'ệ', '\u0323'];
  const text = fc.array(fc.constantFrom(...POOL), { maxLength: 14 }).map((a) => a.join(''));

  it('answers exactly what the matcher finds for whole words and phrases of them, a superset for the rest', () => {
    fc.assert(fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(5)), { maxLength: 6 }), (docs, picks) => {
      const db = wordIndex();
      const insert = db.prepare('INSERT INTO record_versions_words (rowid, words) VALUES (?, ?)');
      docs.forEach((d, i) => insert.run(i + 1, indexText(d)));
      for (const [doc, at, kind] of picks) {
        // Queries cut from the texts themselves, so that they find something.
        const source = docs[doc % docs.length]!;
        const words = source.split(/\s+/u).filter((w) => w.length > 0);
        if (words.length === 0) continue;
        const w = words[at % words.length]!;
        const next = words[(at + 1) % words.length]!;
        const q = [w, `${[...w].slice(0, 2).join('')}*`, `"${w} ${next}"`, `${w} ${next}`, w.normalize('NFC'), `"${w} ${next}"`.normalize('NFD')][kind]!;
        let parsed;
        try {
          parsed = parseSearchQuery(q);
        } catch {
          continue;
        }
        const query = indexQuery(parsed.terms);
        if (!query) continue;
        const matcher = compileMatcher(parsed.terms);
        const found = new Set(db.prepare('SELECT rowid FROM record_versions_words WHERE record_versions_words MATCH ?').pluck().all(query.expression) as number[]);
        const truth = new Set(docs.flatMap((d, i) => (matcher.test(d) ? [i + 1] : [])));
        for (const id of truth) expect(found.has(id), `${q} in ${JSON.stringify(docs[id - 1])}`).toBe(true);
        if (query.exact) expect([...found].sort(), `${q}: ${JSON.stringify(docs)}`).toEqual([...truth].sort());
      }
      db.close();
    }), { numRuns: 400 });
  });
});
