/**
 * A keyed file computes each section's birth id once: a sync asks for the ids of a changed file's
 * sections (store/plan.ts, whether a carried row's id is taken) and then builds their records, which
 * carry the same ids. The hashing is counted at node:crypto's one-shot `hash` (a pass-through spy on
 * Node's module, not on ours): every birth id is one SHA-1 (its version-5 UUID), nothing else here is.
 */
import crypto from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chunkBirthIds } from '@/lib/core/ids';
import { splitSections } from '@/lib/core/markdown';
import { handlerFor } from './handlers';
import { keyedFile, type MarkdownFile } from './records';

const AGENT = '0b7c2a4e-8b3d-4e5f-9a7b-0c1d2e3f4a5b';

function file(): MarkdownFile {
  const text = '# Notes\n\n## A\nsame\n\n## B\nsame\n\n## A\nsame\n\n## C\n#ops other [x|i=0.7]\n';
  return { relPath: 'memory/project-alpha.md', text, mtime: '2026-06-01T00:00:00Z', handler: handlerFor('memory/project-alpha.md')!, tier: null };
}

describe('keyedFile birth ids', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives the occurrence rule ids, and builds the records with them without hashing them again', () => {
    const f = file();
    const keyed = keyedFile(AGENT, f);
    const sections = splitSections(f.text);
    const expected = chunkBirthIds({ runtime: 'openclaw', agentId: AGENT, originFile: f.relPath, contents: sections.map((s) => s.content) });
    const sha1 = vi.spyOn(crypto, 'hash');
    const asked = sections.map((_, i) => keyed.birthId(i));
    expect(asked).toEqual(expected);
    expect(sha1.mock.calls.filter(([algorithm]) => algorithm === 'sha1')).toHaveLength(sections.length);
    sha1.mockClear();
    const records = keyed.slots(() => false).map((slot) => slot.build());
    expect(records.map((r) => r.id)).toEqual(expected);
    expect(sha1.mock.calls.filter(([algorithm]) => algorithm === 'sha1')).toHaveLength(0);
  });
});
