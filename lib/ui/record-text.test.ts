import { describe, expect, it } from 'vitest';
import { bodyPreview, recordTitle } from './record-text';

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
    expect(recordTitle({ heading: null, origin_file: 'MEMORY.md', content: 'Never book Fridays.' })).toBe('Never book Fridays.');
    expect(recordTitle({ heading: null, origin_file: 'a/b.md', content: '' })).toBe('b.md');
  });
});
