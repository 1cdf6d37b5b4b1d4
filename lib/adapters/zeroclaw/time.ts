/**
 * Timestamp conversions shared by the database adapters. Output follows chrono's
 * RFC 3339 "AutoSi" form the reference writes: UTC with `Z`, and 0, 3, 6 or 9
 * fractional digits, whichever is the shortest exact one.
 */

const RFC3339_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9})\d*)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** Formats whole epoch seconds plus nanoseconds as RFC 3339 UTC. */
export function formatEpochNanos(seconds: number, nanos: number): string {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${base}${fraction(nanos)}Z`;
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

/**
 * Parses an RFC 3339 timestamp (any offset, up to nanosecond precision) and returns
 * it normalized to UTC, or null when the text is not RFC 3339.
 */
export function normalizeRfc3339(text: string): string | null {
  const m = RFC3339_RE.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number, number, number, number, number, number,
  ];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null;
  const offsetMinutes = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  const epochMs = Date.UTC(y, mo - 1, d, h, mi, s) - offsetMinutes * 60_000;
  if (!Number.isFinite(epochMs)) return null;
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return formatEpochNanos(Math.floor(epochMs / 1000), nanos);
}

/**
 * Unix seconds as a float (Hermes' `started_at`) → RFC 3339 UTC. Nanoseconds are the
 * truncated fractional part, as the reference computes them.
 */
export function unixSecondsToRfc3339(seconds: number): string {
  if (!Number.isFinite(seconds)) throw new Error(`expected finite unix seconds, got ${seconds}`);
  const whole = Math.trunc(seconds);
  let nanos = Math.trunc((seconds - whole) * 1e9);
  let secs = whole;
  if (nanos < 0) {
    secs -= 1;
    nanos += 1_000_000_000;
  }
  return formatEpochNanos(secs, nanos);
}

/** A bigint nanosecond timestamp (from `stat(..., { bigint: true })`) → RFC 3339 UTC. */
export function nanosToRfc3339(epochNanos: bigint): string {
  const billion = 1_000_000_000n;
  let secs = epochNanos / billion;
  let nanos = epochNanos % billion;
  if (nanos < 0n) {
    secs -= 1n;
    nanos += billion;
  }
  return formatEpochNanos(Number(secs), Number(nanos));
}
