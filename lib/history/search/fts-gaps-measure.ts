/**
 * Measures where SQLite's trigram tokenizer folds case differently from `foldChar`: the folded
 * characters some variant of which the index does not find through that folded character. The
 * engine never hands such a character to the index (fts-gaps.ts holds the list; its test re-measures).
 */
import Database from 'better-sqlite3';
import { foldChar, isWordChar } from './fold';

export function measureFtsGaps(): string[] {
  const db = new Database(':memory:');
  try {
    db.exec("CREATE VIRTUAL TABLE t USING fts5(c, tokenize='trigram')");
    const insert = db.prepare('INSERT INTO t(rowid, c) VALUES (?, ?)');
    const byFold = new Map<string, number[]>();
    db.transaction(() => {
      for (let cp = 0x80; cp < 0x20000; cp++) {
        if (cp >= 0xd800 && cp < 0xe000) continue;
        const ch = String.fromCodePoint(cp);
        const folded = foldChar(ch);
        if (!isWordChar(ch) && folded === ch) continue;
        insert.run(cp, ch + ch + ch);
        byFold.set(folded, [...(byFold.get(folded) ?? []), cp]);
      }
    })();
    const match = db.prepare('SELECT rowid FROM t WHERE t MATCH ?').pluck();
    const gaps: string[] = [];
    for (const [folded, members] of byFold) {
      const found = new Set(match.all(`"${folded.repeat(3)}"`) as number[]);
      if (members.some((cp) => !found.has(cp))) gaps.push(folded);
    }
    return gaps.sort((a, b) => a.codePointAt(0)! - b.codePointAt(0)!);
  } finally {
    db.close();
  }
}
