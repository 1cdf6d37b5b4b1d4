import { describe, expect, it } from 'vitest';
import { locateSections } from './sections';

const file = '# MEMORY\n\n## Editor\n\nTabs.\n\n## Gateway\n\nAt 10.0.0.1.\n';

describe('locateSections', () => {
  it('finds each section by its text', () => {
    const sections = locateSections(file, [
      { record_id: 'b', heading: 'Gateway', content: '## Gateway\n\nAt 10.0.0.1.\n' },
      { record_id: 'a', heading: 'Editor', content: '## Editor\n\nTabs.' },
    ]);
    expect(sections.map((s) => [s.record.record_id, s.lineStart, s.lineEnd])).toEqual([
      ['a', 3, 5],
      ['b', 7, 9],
    ]);
  });

  it('prefers explicit line numbers and skips records not in the file', () => {
    const sections = locateSections(file, [
      { record_id: 'x', heading: null, content: 'elsewhere' },
      { record_id: 'y', heading: 'Editor', content: 'whatever', line_start: 3, line_end: 5 },
    ]);
    expect(sections.map((s) => [s.record.record_id, s.lineStart, s.lineEnd])).toEqual([['y', 3, 5]]);
  });
});
