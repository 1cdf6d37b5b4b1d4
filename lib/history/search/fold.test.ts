import { expect, it } from 'vitest';
import { foldCase, foldChar } from './fold';
import { variantsOf } from './fold-variants';
it('knows every character that folds to a folded character', () => {
  for (let cp = 0; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp < 0xe000) continue;
    const ch = String.fromCodePoint(cp);
    const folded = foldChar(ch);
    if (!variantsOf(folded).includes(ch)) expect.fail(`${ch} (U+${cp.toString(16)}) folds to ${folded}, which does not list it`);
  }
});

it('folds case without changing lengths', () => {
  expect(foldCase('MÜLLER ΟΔΟΣ straße STRASSE \u212Aelvin İstanbul')).toBe('müller οδοσ straße strasse kelvin İstanbul');
  expect(foldCase('ς')).toBe(foldCase('Σ'));
  expect(foldCase('ẞ')).toBe('ß');
});
