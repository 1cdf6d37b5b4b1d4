import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localTarget } from '../local-target';
import { syncWorkspace, type SyncOutput } from '../sync';
import { makeSandbox, readTree, steppingClock } from '../testing/workspace';
import { KeysAhead } from './keys-ahead';

const AGENT = '0b7e4c2d-1a3f-4e5b-8c6d-7e8f9a0b1c2d';

/**
 * Two clients of the same workspace history: `ahead` syncs with a watch's keying ahead, `twin`
 * without. Whatever was keyed ahead, they must upload the same bytes.
 */
async function twins() {
  const made = await Promise.all([makeSandbox('lineage-ahead-'), makeSandbox('lineage-twin-')]);
  const [ahead, twin] = made.map((box) => ({ ...box, clock: steppingClock(), target: localTarget(box.dataDir) }));
  for (const side of [ahead!, twin!]) await fs.writeFile(path.join(side.workspace, '.alf-agent-id'), AGENT);
  const keys = new KeysAhead(ahead!.workspace, ahead!.alfHome);
  let taken = 0;
  const log = (line: string) => {
    const n = /^(\d+) changed files? keyed ahead by the watch$/.exec(line);
    if (n) taken += Number(n[1]);
  };
  const sync = (side: typeof twin, keysAhead?: KeysAhead) => syncWorkspace({ runtime: 'openclaw', workspace: side!.workspace, target: side!.target, alfHome: side!.alfHome, clock: side!.clock, keysAhead, log });
  return {
    ahead: ahead!, twin: twin!, keys,
    /** Writes a file in both workspaces, its mtime `minute` minutes into a fixed day. */
    async write(rel: string, text: string, minute: number, sides = [ahead!, twin!]) {
      for (const side of sides) {
        await side.write(rel, text);
        const at = new Date(Date.parse('2026-10-01T08:00:00Z') + minute * 60_000);
        await fs.utimes(path.join(side.workspace, rel), at, at);
      }
    },
    /** Keys these files ahead, as a watch does on their change events. */
    async keyAhead(...rels: string[]) {
      for (const rel of rels) keys.changed(rel);
      await keys.settled();
    },
    /** Syncs both (the `ahead` side with its keys, unless `foreign`: a sync run by another process) and checks they uploaded the same. */
    async syncBoth(options: { foreign?: boolean } = {}): Promise<{ out: SyncOutput; taken: number }> {
      taken = 0;
      const out = options.foreign ? await sync(ahead) : await keys.during(() => sync(ahead, keys));
      const other = await sync(twin);
      expect({ ...out, snapshot_path: '' }).toEqual({ ...other, snapshot_path: '' });
      const [mine, theirs] = await Promise.all([ahead!, twin!].map((side) => readTree(path.join(side.dataDir, 'blobs'))));
      expect([...mine!.keys()]).toEqual([...theirs!.keys()]);
      for (const [name, bytes] of mine!) expect(bytes.equals(theirs!.get(name)!), name).toBe(true);
      return { out, taken };
    },
    cleanup: async () => {
      keys.close();
      await Promise.all(made.map((box) => box.cleanup()));
    },
  };
}

const sections = (...s: string[]) => `# notes\n\n${s.map((x) => `${x}\n`).join('\n')}`;

describe('keying ahead (a watch keys changed files as they change)', () => {
  let t: Awaited<ReturnType<typeof twins>>;
  afterEach(async () => t?.cleanup());

  it('a sync takes the files keyed from the bytes and mtime it reads, and uploads what it would have without them', async () => {
    t = await twins();
    await t.write('memory/a.md', sections('## one\nfirst', '## two\nsecond', '## three\nthird'), 1);
    await t.write('memory/b.md', sections('## x\nex'), 1);
    await t.write('memory/c.md', sections('## y\nwhy'), 1);
    // Nothing to key against before the first sync: nothing is kept, nothing waits.
    await t.keyAhead('memory/a.md', 'memory/b.md');
    expect((await t.syncBoth()).taken).toBe(0);

    await t.write('memory/a.md', sections('## one\nfirst', '## two\nsecond, edited', '## three\nthird'), 2);
    await t.write('memory/b.md', sections('## x\nex', '## z\nzed'), 2);
    await t.write('memory/c.md', sections('## y\nwhy not'), 2);
    await t.write('memory/d.bin', 'not markdown', 2);
    // a and b keyed ahead (d is no record-bearing file); c is keyed by the sync.
    await t.keyAhead('memory/a.md', 'memory/b.md', 'memory/d.bin');
    const { out, taken } = await t.syncBoth();
    expect(out.delta).toBe(true);
    expect(taken).toBe(2);
  });

  it('a file changed again, or whose mtime moved, since it was keyed is keyed by the sync', async () => {
    t = await twins();
    await t.write('memory/a.md', sections('## one\nfirst', '## two\nsecond'), 1);
    await t.write('memory/b.md', sections('## x\nex'), 1);
    await t.syncBoth();
    await t.write('memory/a.md', sections('## one\nfirst', '## two\nsecond, a draft'), 2, [t.ahead]);
    await t.write('memory/b.md', sections('## x\nex', '## z\nzed'), 2);
    await t.keyAhead('memory/a.md', 'memory/b.md');
    // Other bytes, the same mtime (two writes within a timestamp's granularity).
    await t.write('memory/a.md', sections('## one\nfirst', '## two\nsecond, final'), 2);
    // The same bytes, another mtime (the records' created_at is the file's mtime).
    await t.write('memory/b.md', sections('## x\nex', '## z\nzed'), 4);
    expect((await t.syncBoth()).taken).toBe(0);
  });

  it('a file keyed against a state another sync has replaced since is keyed by the sync, even with the same bytes and mtime', async () => {
    t = await twins();
    await t.write('memory/a.md', sections('## one\nfirst', '## two\nsecond', '## three\nthird'), 1);
    await t.syncBoth();
    // Keyed against the first state (its sections one and two taken over from it)...
    await t.write('memory/a.md', sections('## one\nfirst', '## two\nsecond', '## three\nthird, edited'), 2, [t.ahead]);
    await t.keyAhead('memory/a.md');
    // ...which another process's sync replaces, with other sections in that file...
    await t.write('memory/a.md', sections('## p\nquite', '## q\nanother file'), 3);
    await t.syncBoth({ foreign: true });
    // ...before the file is back at the bytes and mtime it was keyed with.
    await t.write('memory/a.md', sections('## one\nfirst', '## two\nsecond', '## three\nthird, edited'), 2);
    expect((await t.syncBoth()).taken).toBe(0);
  });

  it('stops keying when closed', async () => {
    t = await twins();
    await t.write('memory/a.md', sections('## one\nfirst'), 1);
    await t.syncBoth();
    await t.write('memory/a.md', sections('## one\nfirst, edited'), 2);
    t.keys.close();
    await t.keyAhead('memory/a.md');
    expect((await t.syncBoth()).taken).toBe(0);
  });
});
