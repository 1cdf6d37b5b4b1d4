import { describe, expect, it } from 'vitest';
import { isRustWhitespace, rustTrimEnd } from './rust-str';

/** Rust's `char::is_whitespace`: the Unicode White_Space property. */
const WHITE_SPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];

describe('isRustWhitespace', () => {
  it('is exactly Unicode White_Space over the whole BMP (ASCII answered without the table)', () => {
    const expected = new Set(WHITE_SPACE);
    for (let c = 0; c <= 0xffff; c++) expect.soft(isRustWhitespace(c), `U+${c.toString(16)}`).toBe(expected.has(c));
    expect(isRustWhitespace(0xfeff)).toBe(false);
  });

  it('trim_end strips \\r, \\t, U+0085 and U+3000 but not U+FEFF', () => {
    expect(rustTrimEnd('a \r\n\t\u0085\u3000')).toBe('a');
    expect(rustTrimEnd('a\ufeff')).toBe('a\ufeff');
  });
});
