import { describe, expect, it } from 'vitest';
import { formatDay, formatShortDay, relativeTime } from './format';

const now = new Date('2026-12-01T08:00:00Z');

describe('relativeTime: one rule, by UTC calendar day', () => {
  it('names the day before today "yesterday" whatever the hour, matching the feed heading', () => {
    expect(relativeTime('2026-11-30T23:59:00Z', now)).toBe('yesterday');
    expect(relativeTime('2026-11-30T00:01:00Z', now)).toBe('yesterday');
    expect(formatDay('2026-11-30')).toBe('Monday, Nov 30');
  });

  it('counts days by the calendar, not by rounding hours', () => {
    // 1.6 days before now, but two calendar days back.
    expect(relativeTime('2026-11-29T17:00:00Z', now)).toBe('2 days ago');
    expect(relativeTime('2026-11-25T09:00:00Z', now)).toBe('6 days ago');
    expect(relativeTime('2026-11-24T09:00:00Z', now)).toBe('last week');
  });

  it('uses minutes and hours within today', () => {
    expect(relativeTime('2026-12-01T07:59:50Z', now)).toBe('just now');
    expect(relativeTime('2026-12-01T07:30:00Z', now)).toBe('30 minutes ago');
    expect(relativeTime('2026-12-01T01:00:00Z', now)).toBe('7 hours ago');
    expect(relativeTime('2026-12-01T09:00:00Z', now)).toBe('just now');
  });
});

describe('the one date format', () => {
  it('writes short days as "Nov 4", never "4/11"', () => {
    expect(formatShortDay('2026-11-04')).toBe('Nov 4');
  });
});
