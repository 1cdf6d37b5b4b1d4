import { describe, expect, it } from 'vitest';
import { compareQuery, downloadQuery, recordsQuery, searchQuery, sequencesQuery } from '@/app/api/_lib/schemas';
import { zodErrorInWords } from './issue-words';

function words(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, input: Record<string, string>): string {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a failure');
  return zodErrorInWords(result.error as never, input);
}

describe('validation errors in words', () => {
  it('says an over-long search in words, with its length', () => {
    expect(words(searchQuery, { q: 'x'.repeat(612) })).toBe('The search text must be at most 500 characters long; it has 612.');
  });

  it('says what is missing, what is allowed and what is unknown', () => {
    expect(words(searchQuery, {})).toBe('The search text is required.');
    expect(words(downloadQuery, { format: 'rar' })).toBe('The archive format must be “tar.gz”, “zip” or “alf”.');
    expect(words(sequencesQuery, { before: 'abc' })).toBe('The sequence to page before (before) must be a non-negative integer.');
    expect(words(sequencesQuery, { colour: 'red' })).toBe('“colour” is not a parameter of this page.');
  });

  it('says one sentence per parameter: a number past 2^53 is said once, with its own bound', () => {
    expect(words(recordsQuery, { limit: '99999999999999999999' })).toBe('The page size (limit) must be at most 1000.');
    expect(words(recordsQuery, { at: '9007199254740993' })).toBe('The sequence (at) must be at most 9007199254740991.');
    expect(words(compareQuery, { from: '1e400', to: '99999999999999999999' })).toBe('The first sequence (from) must be a non-negative integer. The second sequence (to) must be at most 9007199254740991.');
  });

  it('never shows the validator notation', () => {
    const text = words(searchQuery, { q: 'x'.repeat(600), extra: '1' });
    expect(text).not.toMatch(/Too big|expected string|<=|Unrecognized/);
  });
});
