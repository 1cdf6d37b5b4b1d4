import { describe, expect, it } from 'vitest';
import { parseIsoTime } from './iso-time';
import { parseSince } from './changes';

const READ: [string, string][] = [
  ['2026-11-20', '2026-11-20T00:00:00.000Z'],
  ['2026-11-20T10:00', '2026-11-20T10:00:00.000Z'],
  ['2026-11-20 10:00:05.123Z', '2026-11-20T10:00:05.123Z'],
  ['2026-11-20T10:00:05+02:00', '2026-11-20T08:00:05.000Z'],
  ['2026-11-20T10:00:05-0130', '2026-11-20T11:30:05.000Z'],
  ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ['2000-02-29', '2000-02-29T00:00:00.000Z'],
  ['0000-02-29', '0000-02-29T00:00:00.000Z'],
  ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
];

const REFUSED = [
  '2026-02-29', '1900-02-29', '2026-02-30', '2026-04-31', '2026-13-01', '2026-00-10', '2026-11-00', '2026-11-20T24:00',
  '2026-11-20T10:60', '2026-11-20T10:00:60', '2026-11-20T10:00+24:00', '2026-11-20T10:00+02:60', '1', '-1', '20261120',
  'Dec 25 2026', '2026-11-20T10:00:00ZZ', '+275760-09-13', '',
];

describe('parseIsoTime', () => {
  it.each(READ)('%s is %s', (text, iso) => {
    expect(parseIsoTime(text)?.toISOString()).toBe(iso);
  });

  it.each(REFUSED)('%j is not a time (parseSince says so)', (text) => {
    expect(parseIsoTime(text)).toBeNull();
    if (text.trim() !== '') expect(() => parseSince(text, new Date('2026-12-06T12:00:00Z'))).toThrow(/cannot read .* as a time/);
  });
});
