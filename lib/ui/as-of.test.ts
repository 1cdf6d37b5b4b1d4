import { describe, expect, it } from 'vitest';
import { parseAsOf } from './as-of';

describe('parseAsOf', () => {
  it('reads the typed form and the link form as UTC', () => {
    expect(parseAsOf('2026-03-04 14:05')).toBe('2026-03-04T14:05:00.000Z');
    expect(parseAsOf('2026-03-04T14:05')).toBe('2026-03-04T14:05:00.000Z');
    expect(parseAsOf(' 2026-03-04 14:05:09 ')).toBe('2026-03-04T14:05:09.000Z');
  });

  it('refuses what is not a date and time', () => {
    for (const text of ['yesterday', '2026-03-04', '14:05', '03/04/2026, 2:05 PM', '2026-13-04 14:05', '']) expect(parseAsOf(text), text).toBeNull();
    expect(parseAsOf(null)).toBeNull();
  });
});
