import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';
import { lockFilesUnwritten, opensForWriting, tracedCli } from './traced-cli';

describe('a sync does not open files whose stat data are unchanged', () => {
  it('opens only the edited file; an idle sync opens no memory file and writes nothing', async () => {
    const sb = await makeSandbox('lineage-unchanged-');
    try {
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      await sb.write('USER.md', '# User\nDana\n');
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
      await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\n## Standup\nReviewed the queue.\n');
      await sb.write('memory/blob.bin', new Uint8Array([0, 1, 2, 3]));
      const env = { ALF_HOME: sb.alfHome };
      const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 0 });

      await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\n## Standup\nReviewed the queue twice.\n');
      const edit = await tracedCli(args, env, path.join(sb.root, 'edit.trace'));
      expect(edit.json).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });
      const opened = (o: { opens: { file: string }[] }) => new Set(o.opens.map((x) => path.relative(sb.workspace, x.file)));
      const inEdit = opened(edit);
      expect(inEdit.has('memory/2026-11-02.md')).toBe(true);
      for (const rel of ['MEMORY.md', 'USER.md', 'memory/2026-11-01.md', 'memory/blob.bin']) expect(inEdit.has(rel), rel).toBe(false);

      const idle = await tracedCli(args, env, path.join(sb.root, 'idle.trace'));
      expect(idle.json).toMatchObject({ ok: true, sequence: 1, no_changes: true });
      const inIdle = opened(idle);
      for (const rel of ['MEMORY.md', 'USER.md', 'memory/2026-11-01.md', 'memory/2026-11-02.md', 'memory/blob.bin']) expect(inIdle.has(rel), rel).toBe(false);
      // Nor the base: an export that found every file unchanged (none came or went) is the base's own.
      expect(idle.opens.filter((o) => o.file.endsWith('-snapshot.alf'))).toEqual([]);
      // Nothing opened for writing, in the workspace, the ALF home or the data directory.
      // (The agent's lock is opened read-write to be held: the file stays empty.)
      expect(opensForWriting(idle.opens, [sb.workspace, sb.alfHome, sb.dataDir], sb.alfHome)).toEqual([]);
      expect((await lockFilesUnwritten(sb.alfHome)).map((f) => f.size)).toEqual([0]);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('racy timestamps: a file edited in the same second as the last sync, same size and mtime, is seen as changed; one whose mtime is ahead of the clock is not read again unless its ctime moved', async () => {
    const sb = await makeSandbox('lineage-racy-');
    try {
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
      const env = { ALF_HOME: sb.alfHome };
      const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
      const file = path.join(sb.workspace, 'MEMORY.md');
      // A second-granular mtime (as a coarse filesystem keeps it), within the current second.
      const second = new Date(Math.floor(Date.now() / 1000) * 1000);
      await fs.utimes(file, second, second);
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 0 });
      // Edited right away: same size, and its mtime put back to the same second.
      await fs.writeFile(file, '# M\n\n## Gateway\nThe gateway is 10.20.0.7.\n');
      await fs.utimes(file, second, second);
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 1, changes: { creates: 0, updates: 1, deletes: 0 } });

      // A file whose mtime was set ahead of the clock (`touch -d`, an unpacked archive): its ctime,
      // which the kernel sets at every change, is older than the state, so it is not read again...
      const ahead = new Date(Date.now() + 3_600_000);
      await fs.utimes(file, ahead, ahead);
      // (A sync that uploads something, so the state is written with MEMORY.md's stat data as they are now.)
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer again.\n');
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 2, changes: { creates: 0, updates: 1, deletes: 0 } });
      const idle = await tracedCli(args, env, path.join(sb.root, 'racy.trace'));
      expect(idle.json).toMatchObject({ ok: true, sequence: 2, no_changes: true });
      const opened = new Set(idle.opens.map((x) => path.relative(sb.workspace, x.file)));
      expect(opened.has('MEMORY.md')).toBe(false);
      expect(opened.has('memory/2026-11-01.md')).toBe(false);
      // ...and an edit that keeps its size and puts the same mtime back is still seen (its ctime moved).
      await fs.writeFile(file, '# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
      await fs.utimes(file, ahead, ahead);
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 3, changes: { creates: 0, updates: 1, deletes: 0 } });

      // The rule itself: files whose ctime is not older than the index (here: the index's mtime put
      // an hour back, as if it had been written in the tick of their last change) are read again.
      const agentId = (await fs.readFile(path.join(sb.workspace, '.alf-agent-id'), 'utf8')).trim();
      const back = new Date(Date.now() - 3_600_000);
      await fs.utimes(path.join(sb.alfHome, '.alf', 'state', `${agentId}-state.idx`), back, back);
      const racy = await tracedCli(args, env, path.join(sb.root, 'racy-index.trace'));
      expect(racy.json).toMatchObject({ ok: true, sequence: 3, no_changes: true });
      const read = new Set(racy.opens.map((x) => path.relative(sb.workspace, x.file)));
      expect(read.has('MEMORY.md')).toBe(true);
      expect(read.has('memory/2026-11-01.md')).toBe(true);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
