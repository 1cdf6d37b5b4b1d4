import { describe, expect, it } from 'vitest';
import { isStagingPath, stagingName, stagingPid, stagingWarnings } from './restore-staging';

describe('a restore\'s staging names', () => {
  it('are recognized in exactly the shape stageFiles gives them', () => {
    expect(stagingPid(stagingName(4321, 0))).toBe(4321);
    expect(stagingPid(stagingName(1, 17))).toBe(1);
    for (const name of ['.alf-restore-0-0.tmp', '.alf-restore-01-0.tmp', '.alf-restore-1-00.tmp', '.alf-restore-1-0.tmp~', '.alf-restore-1-0.TMP', 'x.alf-restore-1-0.tmp', '.alf-restore--1-0.tmp', '.alf-restore-1.5-0.tmp', '.alf-restore-2147483648-0.tmp']) {
      expect(stagingPid(name), name).toBeNull();
    }
    expect(isStagingPath('memory/deep/.alf-restore-7-3.tmp')).toBe(true);
    expect(isStagingPath('memory/.alf-restore-7-3.tmp/notes.md')).toBe(false);
  });

  it('a warning per restore process, in pid order, naming at most ten files and counting the rest', () => {
    const many = Array.from({ length: 12 }, (_, n) => `memory/${stagingName(900, n)}`);
    const warnings = stagingWarnings([...many, 'memory/notes.md', stagingName(80, 0)], (pid) => pid === 80);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toBe(`a restore in process 80 is writing this workspace: its 1 staging file (${stagingName(80, 0)}) is not synced; sync again once it has finished (if process 80 is no restore, the restore was interrupted: run it again, which removes it)`);
    const named = [...many].sort().slice(0, 10).join(', ');
    expect(warnings[1]).toBe(`a restore into this workspace was interrupted (its process 900 is no longer running) and left 12 staging files, which are not synced: ${named} and 2 more; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes them`);
    expect(stagingWarnings([])).toEqual([]);
  });
});
