import { describe, expect, it } from 'vitest';
import { pageTitle, searchTitle } from './page-title';

describe('page titles', () => {
  it('name the view and the agent, skipping what is unknown', () => {
    expect(pageTitle('Sequence #4', 'Vega')).toBe('Sequence #4 · Vega');
    expect(pageTitle('Workspace', undefined)).toBe('Workspace');
  });

  it('name the query of a search', () => {
    expect(searchTitle('10.42.0')).toBe('“10.42.0” · Search');
    expect(searchTitle('  ')).toBe('Search');
    expect(searchTitle('x'.repeat(80))).toBe(`“${'x'.repeat(60)}…” · Search`);
  });
});
