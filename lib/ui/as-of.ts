/** The workspace's "as of" time: what a user types (UTC), read the same way before and after hydration. */

/** How the field reads a time; a `T` between date and time (what a shared link may carry) works too. */
export const AS_OF_FORMAT = 'YYYY-MM-DD HH:MM';

/** `?as_of=` (UTC, `YYYY-MM-DD HH:MM` or `YYYY-MM-DDTHH:MM`, seconds optional) as an ISO time; null when it is not one. */
export function parseAsOf(value: string | null): string | null {
  const match = value === null ? null : /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)$/.exec(value.trim());
  if (!match) return null;
  const time = new Date(`${match[1]}T${match[2]}Z`);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
}
