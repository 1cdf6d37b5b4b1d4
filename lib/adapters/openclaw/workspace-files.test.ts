import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { absPath, absPathsIn } from './workspace-files';

describe('absPathsIn', () => {
  it("is absPath for a walk's paths, whatever form the workspace is given in", () => {
    const workspaces = ['/ws/agent', '/ws/agent/', '/ws//agent/./', '/', 'rel/ws', './rel/ws/', '.', './', 'rel/../other'];
    const rels = ['MEMORY.md', 'memory/2026-01-15.md', 'memory/archive/2026/01/a b.md'];
    for (const workspace of workspaces) {
      const of = absPathsIn(workspace);
      for (const rel of rels) expect(of(rel), `${workspace} + ${rel}`).toBe(absPath(workspace, rel));
    }
    expect(absPathsIn('/ws')('memory/x.md')).toBe(path.join('/ws', 'memory', 'x.md'));
  });
});
