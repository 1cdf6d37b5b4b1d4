import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { getAgent, listEntries, openLedger } from '@/lib/ledger';
import { httpTarget } from './http-target';
import { localTarget } from './local-target';
import { rebaseWorkspace } from './rebase';
import { restoreAgent } from './restore';
import { statePaths } from './state';
import { syncWorkspace, type StateLayout } from './sync';
import { writeSent } from './synced-marker';
import { readTargetMark, writeTargetMark } from './target-mark';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** A workspace, one ALF home, and two local data directories a user might sync it to. */
async function twoTargets(prefix: string) {
  const sb = await makeSandbox(prefix);
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const A = localTarget(path.join(sb.root, 'data-a'), clock);
  const B = localTarget(path.join(sb.root, 'data-b'), clock);
  const entries = (dir: string, agentId: string) => listEntries({ ledger: openLedger(dir), agentId }).map((e) => `${e.seq}:${e.kind}`);
  return { sb, clock, A, B, dirA: path.join(sb.root, 'data-a'), dirB: path.join(sb.root, 'data-b'), entries };
}

describe('the client state follows one target; another one is synced to as a first sync, or refused', () => {
  for (const layout of ['store', 'alf'] as StateLayout[]) {
    it(`OpenClaw (${layout} state): a second data directory gets a full snapshot, not "no changes"; switching back is refused until a rebase`, async () => {
      const t = await twoTargets(`lineage-mark-${layout}-`);
      await t.sb.write('MEMORY.md', '# Memory\n\n## Facts\nThe sky is blue.\n\n## Tools\nPrefers vim.\n');
      await t.sb.write('memory/2026-11-01.md', '# Log\n\nShipped the gateway.\n');
      const sync = (target: typeof t.A) => syncWorkspace({ runtime: 'openclaw', workspace: t.sb.workspace, target, alfHome: t.sb.alfHome, clock: t.clock, layout });
      const first = await sync(t.A);
      const agentId = first.agent.alf_agent_id;
      expect(readTargetMark(t.sb.alfHome, agentId)).toBe(t.A.label);

      // Nothing changed in the workspace, but B has nothing of the agent: a first sync there.
      const toB = await sync(t.B);
      expect(toB).toMatchObject({ sequence: 0, delta: false, no_changes: false });
      expect(t.entries(t.dirB, agentId)).toEqual(['0:snapshot']);
      expect(readTargetMark(t.sb.alfHome, agentId)).toBe(t.B.label);
      const out = path.join(t.sb.root, 'restored-b');
      await restoreAgent({ runtime: 'openclaw', target: t.B, agentId, out, replace: false, alfHome: path.join(t.sb.root, 'other-home'), clock: t.clock });
      expect(await readTree(out)).toEqual(await readTree(t.sb.workspace));

      // B is now the state's target: idle there, then a delta there.
      expect(await sync(t.B)).toMatchObject({ sequence: 0, no_changes: true });
      // A is at sequence 0 too, but its entry there is not the upload this state came from: refused.
      await expect(sync(t.A)).rejects.toMatchObject({ code: 'target_changed' });
      expect(readTargetMark(t.sb.alfHome, agentId)).toBe(t.B.label);
      await t.sb.write('MEMORY.md', '# Memory\n\n## Facts\nThe sky is green.\n\n## Tools\nPrefers vim.\n');
      expect(await sync(t.B)).toMatchObject({ sequence: 1, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });

      // Back to A, which is at sequence 0 of its own: refused, and nothing changes on either side.
      const stateBefore = await fs.readFile(statePaths(t.sb.alfHome, agentId).toml, 'utf8');
      await expect(sync(t.A)).rejects.toMatchObject({ code: 'target_changed', message: expect.stringContaining(`follows ${t.B.label}`) });
      expect(t.entries(t.dirA, agentId)).toEqual(['0:snapshot']);
      expect(t.entries(t.dirB, agentId)).toEqual(['0:snapshot', '1:delta']);
      expect(await fs.readFile(statePaths(t.sb.alfHome, agentId).toml, 'utf8')).toBe(stateBefore);
      expect(readTargetMark(t.sb.alfHome, agentId)).toBe(t.B.label);

      // The hint's way on: rebase onto A; the next sync uploads the workspace's difference to A.
      await rebaseWorkspace({ runtime: 'openclaw', workspace: t.sb.workspace, target: t.A, alfHome: t.sb.alfHome, clock: t.clock });
      expect(readTargetMark(t.sb.alfHome, agentId)).toBe(t.A.label);
      expect(await sync(t.A)).toMatchObject({ sequence: 1, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });
      const outA = path.join(t.sb.root, 'restored-a');
      await restoreAgent({ runtime: 'openclaw', target: t.A, agentId, out: outA, replace: false, alfHome: path.join(t.sb.root, 'other-home'), clock: t.clock });
      expect(await readTree(outA)).toEqual(await readTree(t.sb.workspace));
    });
  }

  it('ZeroClaw (the store-stat idle path): a second data directory gets a full snapshot', async () => {
    const t = await twoTargets('lineage-mark-zc-');
    const agent = 'aaaaaaaa-0000-4000-8000-00000000000a';
    await seedBrainDb({
      workspace: t.sb.workspace,
      agents: [{ id: agent, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }],
      rows: [{ id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: agent, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' }],
    });
    const lines: string[] = [];
    const sync = (target: typeof t.A) => syncWorkspace({ runtime: 'zeroclaw', workspace: t.sb.workspace, runtimeAgent: 'scout', target, alfHome: t.sb.alfHome, clock: t.clock, log: (line) => lines.push(line) });
    const first = await sync(t.A);
    // Past the racy window of the files just written (ctime cannot be set back): the stat the next
    // sync records then holds, and the one after is idle from it without an export.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await sync(t.A)).toMatchObject({ no_changes: true });
    expect(await sync(t.A)).toMatchObject({ no_changes: true });
    expect(lines.at(-1)).toContain('as the last sync saw them');
    expect(await sync(t.B)).toMatchObject({ sequence: 0, delta: false, no_changes: false });
    expect(t.entries(t.dirB, first.agent.alf_agent_id)).toEqual(['0:snapshot']);
    expect(await sync(t.B)).toMatchObject({ sequence: 0, no_changes: true });
  });

  it('a state with no mark, or one a killed sync left naming the old target, is taken when the target\'s latest entry is this machine\'s upload; with no mark, a target that moved on is left to the upload\'s recovery', async () => {
    const t = await twoTargets('lineage-mark-adopt-');
    await t.sb.write('MEMORY.md', '# Memory\n\n## Facts\nThe sky is blue.\n');
    const sync = (target: typeof t.A) => syncWorkspace({ runtime: 'openclaw', workspace: t.sb.workspace, target, alfHome: t.sb.alfHome, clock: t.clock });
    const agentId = (await sync(t.A)).agent.alf_agent_id;
    const mark = path.join(statePaths(t.sb.alfHome, agentId).dir, `${agentId}.target`);

    // A state written before marks (or by the reference CLI): A's latest is this machine's upload.
    await fs.rm(mark);
    expect(await sync(t.A)).toMatchObject({ sequence: 0, no_changes: true });
    expect(readTargetMark(t.sb.alfHome, agentId)).toBe(t.A.label);

    // No mark, and A moved on past the state with this machine's own upload (a state put back from
    // a copy, the mark gone with it): the sync goes on as before marks, and adopts that upload.
    const aside = path.join(t.sb.root, 'alf-aside');
    await fs.cp(t.sb.alfHome, aside, { recursive: true });
    await t.sb.write('MEMORY.md', '# Memory\n\n## Facts\nThe sky is grey.\n');
    expect(await sync(t.A)).toMatchObject({ sequence: 1, delta: true });
    await fs.rm(t.sb.alfHome, { recursive: true });
    await fs.cp(aside, t.sb.alfHome, { recursive: true });
    await fs.rm(mark);
    expect(await sync(t.A)).toMatchObject({ sequence: 1, no_changes: true, recovered: true });
    expect(readTargetMark(t.sb.alfHome, agentId)).toBe(t.A.label);

    // Synced to B, killed before the mark was written (it still names A): B's latest is the upload
    // this workspace recorded sending, so the state is B's.
    await sync(t.B);
    await writeTargetMark(t.sb.alfHome, agentId, t.A);
    await t.sb.write('MEMORY.md', '# Memory\n\n## Facts\nThe sky is green.\n');
    expect(await sync(t.B)).toMatchObject({ sequence: 1, delta: true });
    expect(readTargetMark(t.sb.alfHome, agentId)).toBe(t.B.label);

    // Killed so again, but toward A, whose latest (sequence 1) is not what this state is at (B's 1).
    await writeTargetMark(t.sb.alfHome, agentId, t.B);
    await expect(sync(t.A)).rejects.toMatchObject({ code: 'target_changed' });
    expect(getAgent({ ledger: openLedger(t.dirA), agentId })?.latest_sequence).toBe(1);
  });

  it('a sync asks the target for its latest entry once, even when it exports twice', async () => {
    // The .alf state, its stat cache made under the workspace's real path: synced through a symlink,
    // every file is unchanged but the cache is not this workspace's, so the export runs again.
    const t = await twoTargets('lineage-mark-once-');
    await t.sb.write('MEMORY.md', '# Memory\n\n## Facts\nThe sky is blue.\n');
    let asked = 0;
    const counting: typeof t.A = { ...t.A, latestEntry: (id) => { asked++; return t.A.latestEntry(id); } };
    const sync = (workspace: string) => syncWorkspace({ runtime: 'openclaw', workspace, target: counting, alfHome: t.sb.alfHome, clock: t.clock, layout: 'alf' });
    const agentId = (await sync(t.sb.workspace)).agent.alf_agent_id;
    // Past the racy window, so that the idle sync's cache holds every file.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await sync(t.sb.workspace)).toMatchObject({ sequence: 0, no_changes: true });
    // No mark, and the upload recorded is not A's latest entry: A is asked, and the state is taken as A's
    // without a mark (the upload's own checks apply), so a second question would ask A again.
    await fs.rm(path.join(statePaths(t.sb.alfHome, agentId).dir, `${agentId}.target`));
    await writeSent(t.sb.workspace, agentId, { base_sequence: null, sha256: '0'.repeat(64) });
    const link = path.join(t.sb.root, 'link');
    await fs.symlink(t.sb.workspace, link);
    asked = 0;
    expect(await sync(link)).toMatchObject({ sequence: 0, no_changes: true });
    expect(asked).toBe(1);
  });

  it('a server is told apart by its URL and its key, and the key is not written down', () => {
    const one = httpTarget({ baseUrl: 'http://127.0.0.1:9', apiKey: 'alf_secret_one' });
    const two = httpTarget({ baseUrl: 'http://127.0.0.1:9', apiKey: 'alf_secret_two' });
    expect(one.identity).not.toBe(two.identity);
    expect(one.identity).toContain('http://127.0.0.1:9');
    expect(one.identity).not.toContain('alf_secret_one');
    expect(httpTarget({ baseUrl: 'http://ops:hunter2@127.0.0.1:9/v1', apiKey: 'k' }).identity).toMatch(/^http:\/\/127\.0\.0\.1:9\/v1 key-sha256:[0-9a-f]{16}$/);
  });
});
