/**
 * Time and chance for the demo fleet: a settable clock every sync reads, the scripted calendar
 * (day 0 is four weeks before "today") and a seeded PRNG, so the same "today" always yields the
 * same ledger.
 */
import type { Clock } from '@/lib/core/clock';
import { prng } from '@/lib/core/prng';

/** Days the scripted lives span; the last day is "today". */
export const DEMO_DAYS = 28;

const DAY_MS = 86_400_000;

/** A clock the scenario moves forward by hand; `now` is what every sync and ingest reads. */
export interface DemoClock {
  now: Clock;
  set(at: Date): void;
}

export function demoClock(start: Date): DemoClock {
  let current = new Date(start.getTime());
  return {
    now: () => new Date(current.getTime()),
    set(at) {
      current = new Date(at.getTime());
    },
  };
}

/**
 * Midnight UTC of year `year`, month `month` (1–12), day `day`, for every year as written:
 * `Date.UTC` and `new Date(y, m, d)` take a year from 0 to 99 for 1900 + it (year 50 is 1950);
 * `setUTCFullYear` does not. A day past its month's end rolls over (callers compare it back).
 */
export function utcDay(year: number, month: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date;
}

/** `YYYY-MM-DD` → midnight UTC of that day (years 0000–9999 as written); throws on anything that is not a real calendar date. */
export function parseDay(text: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const date = match ? utcDay(Number(match[1]), Number(match[2]), Number(match[3])) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()) || isoDay(date) !== text) {
    throw new Error(`expected a date as YYYY-MM-DD, got "${text}"`);
  }
  return date;
}

/** The last scripted day syncs as late as this hour (UTC); see `defaultDemoToday`. */
export const LAST_DAY_SYNC_HOUR = 8;

/**
 * The default "today" for a seeding at `now`: the current UTC date once the last day's early
 * syncs are in the past, else the day before, so no seeded sync lies in the future.
 */
export function defaultDemoToday(now: Date): Date {
  return new Date(now.getTime() - LAST_DAY_SYNC_HOUR * 3_600_000);
}

/** A date (UTC) as `YYYY-MM-DD`. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * The scripted calendar: `day(d)` is midnight UTC of scenario day `d` (0 … DEMO_DAYS-1, the last
 * being `today`), `at(d, h, m)` a time on it.
 */
export interface DemoCalendar {
  today: Date;
  day(d: number): Date;
  at(d: number, hour: number, minute: number): Date;
  /** `YYYY-MM-DD` of scenario day `d`. */
  date(d: number): string;
}

export function demoCalendar(today: Date): DemoCalendar {
  // Days are whole multiples of DAY_MS in UTC: no Date.UTC, which reads years 0–99 as 19xx.
  const midnight = Math.floor(today.getTime() / DAY_MS) * DAY_MS;
  const day = (d: number): Date => new Date(midnight - (DEMO_DAYS - 1 - d) * DAY_MS);
  return {
    today: new Date(midnight),
    day,
    at: (d, hour, minute) => new Date(day(d).getTime() + (hour * 60 + minute) * 60_000),
    date: (d) => isoDay(day(d)),
  };
}

/** A seeded PRNG (mulberry32): deterministic, good enough to vary minutes and pick phrasings. */
export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

export function seededPrng(seed: number): Prng {
  const next = prng(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick needs at least one item');
      return items[Math.floor(next() * items.length)]!;
    },
  };
}
