import { describe, expect, it } from 'vitest';
import { bodyPreview, lineageKey, recordKey, recordTitle } from './record-text';

describe('recordTitle / bodyPreview', () => {
  it('uses the heading and drops its line from the preview', () => {
    const r = { heading: 'Gateway', origin_file: 'MEMORY.md', content: '## Gateway\n\nAt 10.0.0.1.\n' };
    expect(recordTitle(r)).toBe('Gateway');
    expect(bodyPreview(r.content, r.heading)).toBe('At 10.0.0.1.');
  });

  it('names a headingless record by its first line', () => {
    const r = { heading: null, origin_file: 'memory/working-buffer.md', content: '# Working buffer\n\n## Focus\n\nDeploys.' };
    expect(recordTitle(r)).toBe('Working buffer');
    expect(bodyPreview(r.content, null)).toBe('## Focus Deploys.');
    // Titled by a key (a ZeroClaw row): the whole text is the preview.
    expect(bodyPreview('Use Postgres for the queue\nsince May.', null, 'queue')).toBe('Use Postgres for the queue since May.');
    expect(bodyPreview('Use Postgres for the queue', null, null)).toBe('');
    expect(recordTitle({ heading: null, origin_file: 'MEMORY.md', content: 'Never book Fridays.' })).toBe('Never book Fridays.');
    expect(recordTitle({ heading: null, origin_file: 'a/b.md', content: '' })).toBe('b.md');
  });
});

describe('record keys (ZeroClaw rows have a key, no heading)', () => {
  const row = (key: unknown) => ({ id: 'x', content: 'Dedupe by URL.', raw_source_format: { key, category: 'core' } });

  it('reads raw_source_format.key, and nothing else', () => {
    expect(recordKey(row('procedure_dedupe'))).toBe('procedure_dedupe');
    expect(recordKey(row(''))).toBeNull();
    expect(recordKey(row(42))).toBeNull();
    expect(recordKey({ raw_source_format: null })).toBeNull();
    expect(recordKey({ raw_source_format: { heading: 'Gateway', line_start: 1 } })).toBeNull();
  });

  it('takes the newest version that has a key, and titles a headingless record by it', () => {
    const lineage = { versions: [{ record: row('old_key') }, { record: row('new_key') }, { record: {} }] };
    const key = lineageKey(lineage);
    expect(key).toBe('new_key');
    expect(recordTitle({ heading: null, origin_file: null, content: 'Dedupe by URL.', key })).toBe('new_key');
    expect(recordTitle({ heading: 'Gateway', origin_file: null, content: 'x', key })).toBe('Gateway');
    expect(lineageKey({ versions: [] })).toBeNull();
  });
});
