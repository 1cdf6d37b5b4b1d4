import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileAlfIgnore, loadAlfIgnore } from './alfignore';

describe('compileAlfIgnore', () => {
  it('ignores nothing for blank and comment lines', () => {
    const m = compileAlfIgnore('\n# comment\n   \n');
    expect(m('MEMORY.md')).toBe(false);
  });

  it('matches an unanchored name at any depth', () => {
    const m = compileAlfIgnore('*.tmp\n');
    expect(m('a.tmp')).toBe(true);
    expect(m('memory/deep/b.tmp')).toBe(true);
    expect(m('memory/b.tmpx')).toBe(false);
  });

  it('anchors patterns with a leading or inner slash', () => {
    const m = compileAlfIgnore('/notes.md\nmemory/*.log\n');
    expect(m('notes.md')).toBe(true);
    expect(m('memory/notes.md')).toBe(false);
    expect(m('memory/a.log')).toBe(true);
    expect(m('memory/x/a.log')).toBe(false);
  });

  it('treats a trailing slash as directories only, excluding their contents', () => {
    const m = compileAlfIgnore('private/\n');
    expect(m('memory/private/a.md')).toBe(true);
    expect(m('private')).toBe(false);
  });

  it('supports ** and ?', () => {
    const m = compileAlfIgnore('memory/**/secret-?.md\n');
    expect(m('memory/secret-1.md')).toBe(true);
    expect(m('memory/a/b/secret-2.md')).toBe(true);
    expect(m('memory/a/secret-22.md')).toBe(false);
  });

  it('re-includes with ! (last rule wins) but not inside an excluded directory', () => {
    const m = compileAlfIgnore('*.md\n!keep.md\ndrafts/\n!drafts/keep.md\n');
    expect(m('a.md')).toBe(true);
    expect(m('keep.md')).toBe(false);
    expect(m('drafts/keep.md')).toBe(true);
  });
});

describe('loadAlfIgnore', () => {
  it('reads <workspace>/.alfignore and tolerates its absence', async () => {
    const ws = await mkdtemp(path.join(os.tmpdir(), 'alfignore-'));
    expect((await loadAlfIgnore(ws))('x.md')).toBe(false);
    await writeFile(path.join(ws, '.alfignore'), 'x.md\r\n');
    expect((await loadAlfIgnore(ws))('x.md')).toBe(true);
  });
});
