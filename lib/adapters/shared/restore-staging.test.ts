import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findStagingFiles, isStagingPath, removeDeadStaging, markerName, markerPid, parseMarker, selfIdentity, stagingName, stagingPid, stagingWarnings, writerState, type RestoreMarker, type WriterState } from './restore-staging';

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
    const states: Record<number, WriterState> = {
      80: { state: 'running' },
      900: { state: 'ended', why: 'its process 900 is no longer running' },
      901: { state: 'unknown', why: 'process 901 ran on host elsewhere, where this one cannot see whether it still runs' },
    };
    const warnings = stagingWarnings('/ws/it\'s', [...many, 'memory/notes.md', stagingName(80, 0), stagingName(901, 0), `memory/deep/${stagingName(901, 1)}`], (pid) => states[pid]!);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toBe(`a restore in process 80 is writing this workspace: its 1 staging file (${stagingName(80, 0)}) is not synced; sync again once it has finished`);
    const named = [...many].sort().slice(0, 10).join(', ');
    expect(warnings[1]).toBe(`a restore into this workspace was interrupted (its process 900 is no longer running) and left 12 staging files, which are not synced: ${named} and 2 more; the workspace may be only partly restored: run the restore again (with --replace if it asks for it), which removes them`);
    expect(warnings[2]).toBe(`a restore (process 901 ran on host elsewhere, where this one cannot see whether it still runs) left 2 staging files in this workspace, which are not synced and are kept, as it may still be writing them: ${stagingName(901, 0)}, memory/deep/${stagingName(901, 1)}; once sure it has ended, remove them by hand (rm -f -- '/ws/it'\\''s'/.alf-restore-901-*.tmp '/ws/it'\\''s/memory/deep'/.alf-restore-901-*.tmp '/ws/it'\\''s/.alf-restore-901.json') and run the restore again (with --replace if it asks for it)`);
    expect(stagingWarnings('/ws', [])).toEqual([]);
  });
});

describe('who wrote a staging file (a marker)', () => {
  const me = selfIdentity();
  const marker = (over: Partial<RestoreMarker>): RestoreMarker => ({ ...me, dirs: [''], ...over });

  it('a marker is read back exactly, and anything else is no marker', () => {
    const m = marker({ pid: 4321, dirs: ['memory', ''] });
    expect(parseMarker(JSON.stringify(m), 4321)).toEqual({ ...m, dirs: ['', 'memory'] });
    expect(parseMarker(JSON.stringify(m), 4322)).toBeNull(); // another pid than its name's
    for (const dirs of [['../out'], ['/etc'], ['a//b'], ['a/./b'], [3]]) expect(parseMarker(JSON.stringify({ ...m, dirs }), 4321)).toBeNull();
    expect(parseMarker('not json', 4321)).toBeNull();
    expect(markerPid(markerName(77))).toBe(77);
    for (const name of ['.alf-restore-077.json', '.alf-restore-77.json~', '.alf-restore-77-0.json']) expect(markerPid(name)).toBeNull();
  });

  it('ended only when proven: same kernel and pid namespace and the pid gone or reused, or this machine booted since', () => {
    expect(writerState(process.pid, marker({}), me)).toEqual({ state: 'running' });
    // This process's pid with another start time: an earlier process of that pid.
    expect(writerState(process.pid, marker({ start_time: '1' }), me)).toMatchObject({ state: 'ended' });
    expect(writerState(process.pid, marker({ pid_ns: 'pid:[1]' }), me)).toMatchObject({ state: 'unknown', why: expect.stringContaining('another pid namespace (pid:[1])') });
    expect(writerState(process.pid, marker({ boot_id: 'another-boot' }), me)).toMatchObject({ state: 'ended', why: `its process ${process.pid} ran before this machine last started` });
    expect(writerState(process.pid, marker({ boot_id: 'another-boot', host: 'elsewhere' }), me)).toMatchObject({ state: 'unknown', why: expect.stringContaining('host elsewhere') });
    expect(writerState(process.pid, marker({ boot_id: 'another-boot', machine_id: null }), me)).toMatchObject({ state: 'unknown' });
    expect(writerState(process.pid, null, me)).toMatchObject({ state: 'unknown' });
  });
});

describe('a workspace a restore has not made yet', () => {
  // `lineage restore -w DIR` of a DIR not there yet failed as internal_error ("ENOENT ... realpath") before it created it.
  it('holds no staging files, and removing the dead ones removes nothing', async () => {
    const missing = path.join(os.tmpdir(), `lineage-no-such-workspace-${process.pid}`, 'ws');
    expect(await findStagingFiles(missing, ['memory'])).toEqual([]);
    expect(await removeDeadStaging(missing, ['memory'])).toEqual({ removed: [], warnings: [] });
  });
});
