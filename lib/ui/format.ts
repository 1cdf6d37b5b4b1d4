/** Display formatting shared by every view: short ids, relative times, dates, sizes. */

/** First 8 characters of a UUID (or the whole id when it is short). */
export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}

const DAY_MS = 86_400_000;

/** Whole UTC calendar days from `then` to `now` (the day headings of the feeds are UTC days too). */
function calendarDays(then: Date, now: Date): number {
  const day = (d: Date) => Math.floor(d.getTime() / DAY_MS);
  return day(now) - day(then);
}

/**
 * The one relative-date rule: within the same UTC day "just now", "N minutes ago", "N hours ago";
 * otherwise by calendar day — "yesterday", "N days ago" up to 6, then weeks, months and years — so
 * a time on the day headed "yesterday" is always "yesterday", never "2 days ago". Future times
 * (a clock skew) read "just now". `now` is injectable for tests.
 */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const then = new Date(iso);
  const seconds = (now.getTime() - then.getTime()) / 1000;
  if (!Number.isFinite(seconds)) return '—';
  const days = calendarDays(then, now);
  if (seconds < 45 || days < 0) return 'just now';
  if (days === 0) {
    if (seconds < 3600) return plural(Math.max(1, Math.round(seconds / 60)), 'minute') + ' ago';
    return plural(Math.floor(seconds / 3600), 'hour') + ' ago';
  }
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  if (days < 30) return days < 14 ? 'last week' : `${Math.floor(days / 7)} weeks ago`;
  if (days < 365) return days < 60 ? 'last month' : `${Math.floor(days / 30)} months ago`;
  return days < 730 ? 'last year' : `${Math.floor(days / 365)} years ago`;
}

// Hand-written (not Intl) so the server's and the browser's ICU data can never render different text.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n: number) => String(n).padStart(2, '0');

function parse(iso: string): Date | null {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "Mar 4, 2026" (UTC, so server and browser render the same text). */
export function formatDate(iso: string): string {
  const d = parse(iso);
  return d ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}` : iso;
}

/** "14:05" UTC. */
export function formatTime(iso: string): string {
  const d = parse(iso);
  return d ? `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}` : iso;
}

/** "Mar 4, 2026, 14:05 UTC". */
export function formatDateTime(iso: string): string {
  return parse(iso) ? `${formatDate(iso)}, ${formatTime(iso)} UTC` : iso;
}

/** A `YYYY-MM-DD` day as "Wednesday, Mar 4". */
export function formatDay(day: string): string {
  const d = parse(`${day.slice(0, 10)}T00:00:00Z`);
  return d ? `${WEEKDAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}` : day;
}

/** A `YYYY-MM-DD` day as "Nov 4": the short form of the one date format (chart axes). */
export function formatShortDay(day: string): string {
  const d = parse(`${day.slice(0, 10)}T00:00:00Z`);
  return d ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}` : day;
}

/** "1.2 KB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** "1 update", "3 updates". */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
