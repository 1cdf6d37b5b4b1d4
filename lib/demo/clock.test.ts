import { describe, expect, it } from 'vitest';
import { DEMO_DAYS, defaultDemoToday, demoCalendar, isoDay, parseDay, seededPrng, utcDay } from './clock';

describe('demo clock', () => {
  it('spans four weeks ending on "today"', () => {
    const calendar = demoCalendar(parseDay('2026-03-01'));
    expect(calendar.date(DEMO_DAYS - 1)).toBe('2026-03-01');
    expect(calendar.date(0)).toBe('2026-02-02');
    expect(calendar.at(3, 9, 15).toISOString()).toBe('2026-02-05T09:15:00.000Z');
  });

  it('rejects dates that are not real calendar days', () => {
    expect(() => parseDay('2026-02-30')).toThrow(/YYYY-MM-DD/);
    expect(() => parseDay('10/05/2026')).toThrow(/YYYY-MM-DD/);
    expect(isoDay(parseDay('2024-02-29'))).toBe('2024-02-29');
  });

  it('takes years 0000–0099 as written (Date.UTC made 0050 into 1950)', () => {
    for (const text of ['0000-01-01', '0001-02-28', '0050-03-01', '0099-12-31', '0100-01-01', '1969-12-31', '9999-12-31']) {
      expect(isoDay(parseDay(text))).toBe(text);
      expect(parseDay(text).getUTCFullYear()).toBe(Number(text.slice(0, 4)));
    }
    expect(utcDay(50, 3, 1).toISOString()).toBe('0050-03-01T00:00:00.000Z');
    expect(() => parseDay('0050-02-29')).toThrow(/YYYY-MM-DD/);
    const calendar = demoCalendar(parseDay('0050-03-01'));
    expect(calendar.today.toISOString()).toBe('0050-03-01T00:00:00.000Z');
    expect(calendar.date(DEMO_DAYS - 1)).toBe('0050-03-01');
    expect(calendar.date(0)).toBe('0050-02-02');
    expect(calendar.at(3, 9, 15).toISOString()).toBe('0050-02-05T09:15:00.000Z');
    // Midnight of the day a time falls on, before 1970 too (negative times).
    expect(demoCalendar(new Date('1969-12-31T23:59:59Z')).today.toISOString()).toBe('1969-12-31T00:00:00.000Z');
  });

  it('defaults "today" to yesterday until the last day\'s syncs are in the past', () => {
    expect(isoDay(defaultDemoToday(new Date('2026-05-10T06:00:00Z')))).toBe('2026-05-09');
    expect(isoDay(defaultDemoToday(new Date('2026-05-10T08:00:00Z')))).toBe('2026-05-10');
  });

  it('draws the same numbers from the same seed', () => {
    const draw = (seed: number) => { const p = seededPrng(seed); return Array.from({ length: 5 }, () => p.int(0, 1000)); };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });
});
