import { describe, expect, it } from 'vitest';
import { lineagePageTitle } from './title';

const record = { heading: null, origin_file: 'brain.db', content: 'prefers dark roast' };
const version = (seq: number, key?: string) => ({ seq, record: key === undefined ? {} : { raw_source_format: { key } } });

describe('lineagePageTitle', () => {
  it('names the memory by the key of its newest version that has one (the page is newest first)', () => {
    const page = { record, versions: [version(9), version(7, 'coffee.new'), version(3, 'coffee.old')] };
    expect(lineagePageTitle(page as never)).toBe('coffee.new');
  });

  it('without a key, by its heading or first line, as every other title', () => {
    expect(lineagePageTitle({ record, versions: [version(2), version(1)] } as never)).toBe('prefers dark roast');
    expect(lineagePageTitle({ record: { ...record, heading: 'Coffee' }, versions: [] } as never)).toBe('Coffee');
  });
});
