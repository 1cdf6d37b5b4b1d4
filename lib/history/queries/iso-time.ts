/**
 * ISO 8601 / RFC 3339 times as the dashboard API and `lineage` read them: a date, or a date and
 * time with optional seconds, fraction and zone; without a zone it is UTC. Strict where
 * `Date.parse` is lenient: a day the month does not have (`2026-02-30`, which `Date.parse` turns
 * into 2 March), an hour past 23, a zone past ±23:59, or a bare number (`1`, which it reads as
 * 2001) is not a time.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** The time `text` names, or null when it is not one. */
export function parseIsoTime(text: string): Date | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = m;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  if (h > 23 || mi > 59 || s > 59) return null;
  const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (offset && (Number(offset[2]) > 23 || Number(offset[3]) > 59)) return null;
  const time = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction}${zone.toUpperCase() === 'Z' ? 'Z' : `${offset![1]}${offset![2]}:${offset![3]}`}`);
  return Number.isFinite(time) ? new Date(time) : null;
}
