import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markerName, selfIdentity, stagingPid } from './restore-staging';
import { stageFiles } from './staged-write';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

const files = (names: string[]) => new Map(names.map((name) => [name, new TextEncoder().encode(`bytes of ${name}`)]));

describe('stageFiles', () => {
  it('stages under the names a later restore recognizes as this process\'s, none left after commit', async () => {
    const target = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-staged-'));
    dirs.push(target);
    const staged = await stageFiles(target, files(['MEMORY.md', 'memory/a.md']));
    const temps = (await fs.readdir(target, { recursive: true })).filter((rel) => stagingPid(path.basename(rel)) !== null);
    expect(temps.map((rel) => stagingPid(path.basename(rel)))).toEqual([process.pid, process.pid]);
    // Its marker, beside them while they are staged, says who it is and where it stages.
    expect(JSON.parse(await fs.readFile(path.join(target, markerName(process.pid)), 'utf8'))).toEqual({ ...selfIdentity(), dirs: ['', 'memory'] });
    await staged.commit();
    expect((await fs.readdir(target, { recursive: true })).sort()).toEqual(['MEMORY.md', 'memory', 'memory/a.md']);
  });

  it('a marker of this pid that another restore may still hold (another pid namespace) refuses the restore before anything is staged; one known ended is replaced', async () => {
    const target = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-staged-'));
    dirs.push(target);
    const marker = path.join(target, markerName(process.pid));
    const theirs = JSON.stringify({ ...selfIdentity(), pid_ns: 'pid:[1]', dirs: [''] });
    await fs.writeFile(marker, theirs);
    await expect(stageFiles(target, files(['a.md']))).rejects.toMatchObject({ code: 'restore_incomplete', message: expect.stringContaining(`another restore of the same process id (${process.pid})`) });
    expect(await fs.readdir(target)).toEqual([markerName(process.pid)]);
    expect(await fs.readFile(marker, 'utf8')).toBe(theirs);
    // The same pid with another start time: an earlier process of this pid, ended.
    await fs.writeFile(marker, JSON.stringify({ ...selfIdentity(), start_time: '1', dirs: [''] }));
    const staged = await stageFiles(target, files(['a.md']));
    await staged.commit();
    expect(await fs.readdir(target)).toEqual(['a.md']);
  });

  it('a rename that fails part-way leaves the files before it in place and no staging file', async () => {
    const target = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-staged-'));
    dirs.push(target);
    const staged = await stageFiles(target, files(['a.md', 'b.md', 'c.md']));
    // Something put where b.md goes after the paths were checked: its rename fails.
    await fs.mkdir(path.join(target, 'b.md', 'x'), { recursive: true });
    await expect(staged.commit()).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) });
    expect((await fs.readdir(target, { recursive: true })).sort()).toEqual(['a.md', 'b.md', 'b.md/x']);
    expect(await fs.readFile(path.join(target, 'a.md'), 'utf8')).toBe('bytes of a.md');
  });
});
