import { describe, expect, it } from 'vitest';
import { DEMO_DAYS, defaultDemoToday, demoCalendar, isoDay, parseDay, seededPrng } from './clock';

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
