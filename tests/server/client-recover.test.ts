import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTarget } from '@/lib/sync/http-target';
import { localTarget } from '@/lib/sync/local-target';
import { rebaseWorkspace } from '@/lib/sync/rebase';
import { restoreAgent } from '@/lib/sync/restore';
import { syncWorkspace } from '@/lib/sync/sync';
import { writeSent } from '@/lib/sync/synced-marker';
import type { SyncTarget } from '@/lib/sync/target';
import { readTargetMark } from '@/lib/sync/target-mark';
import { makeSandbox, readTree, steppingClock } from '@/lib/sync/testing/workspace';
import { startTestServer, type TestServer } from './harness';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

type Sandbox = Awaited<ReturnType<typeof makeSandbox>>;
const TARGETS: [string, (sb: Sandbox) => SyncTarget][] = [
  ['the local data dir', (sb) => localTarget(sb.dataDir)],
  ['--server over HTTP', () => httpTarget({ baseUrl: `${t.url}/v1`, apiKey: t.keyA })],
];

async function withSandbox(fn: (sb: Sandbox) => Promise<void>): Promise<void> {
  const sb = await makeSandbox('lineage-recover-');
  try {
    await fn(sb);
  } finally {
    await sb.cleanup();
  }
}

/** Restores the target's sequence into a fresh directory: the workspace files it holds. */
async function treeAt(target: SyncTarget, sb: Sandbox, agentId: string, atSequence: number) {
  const out = path.join(sb.root, `restored-${atSequence}-${Math.random().toString(36).slice(2)}`);
  await restoreAgent({ runtime: 'openclaw', target, agentId, atSequence, out, replace: false, alfHome: sb.alfHome, clock: steppingClock() });
  return readTree(out);
}

describe.each(TARGETS)('a killed sync recovers (%s)', (_name, makeTarget) => {
  it('the deterministic repro (sync; copy .alf aside; edit; sync; put the copy back; sync) adopts its own upload', async () => {
    await withSandbox(async (sb) => {
      const target = makeTarget(sb);
      const clock = steppingClock();
      const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      const first = await sync();
      const aside = path.join(sb.root, 'alf-aside');
      await fs.cp(sb.alfHome, aside, { recursive: true });
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
      expect(await sync()).toMatchObject({ sequence: 1, delta: true });
      await fs.rm(sb.alfHome, { recursive: true });
      await fs.cp(aside, sb.alfHome, { recursive: true });

      // No --force-first-sync, no restore: the entry at 1 is this machine's own delta.
      expect(await sync()).toMatchObject({ ok: true, sequence: 1, no_changes: true, recovered: true });
      // And the next edit is a delta on top of it, restored byte-exact.
      await sb.write('memory/notes.md', 'a new note\n');
      expect(await sync()).toMatchObject({ sequence: 2, delta: true, recovered: false, changes: { creates: 1, updates: 0, deletes: 0 } });
      expect(await treeAt(target, sb, first.agent.alf_agent_id, 2)).toEqual(await readTree(sb.workspace));
    });
  });

  it('an edit made after the killed sync is uploaded once its own upload is adopted', async () => {
    await withSandbox(async (sb) => {
      const target = makeTarget(sb);
      const clock = steppingClock();
      const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
      await sb.write('MEMORY.md', '# M\n\n## A\none\n');
      const first = await sync();
      const aside = path.join(sb.root, 'alf-aside');
      await fs.cp(sb.alfHome, aside, { recursive: true });
      await sb.write('MEMORY.md', '# M\n\n## A\ntwo\n');
      await sync();
      await fs.rm(sb.alfHome, { recursive: true });
      await fs.cp(aside, sb.alfHome, { recursive: true });
      await sb.write('MEMORY.md', '# M\n\n## A\ntwo\n\n## B\nthree\n');
      expect(await sync()).toMatchObject({ sequence: 2, delta: true, recovered: true, changes: { creates: 1, updates: 0, deletes: 0 } });
      expect(await treeAt(target, sb, first.agent.alf_agent_id, 2)).toEqual(await readTree(sb.workspace));
    });
  });

  it('a target that moved on with another blob: a clear error naming --rebase, which rebases without touching the workspace', async () => {
    await withSandbox(async (sb) => {
      const target = makeTarget(sb);
      const clock = steppingClock();
      // Machine B is set up from a copy of machine A (its workspace and its ALF home).
      const wsB = path.join(sb.root, 'ws-b');
      const homeB = path.join(sb.root, 'home-b');
      const syncA = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
      const syncB = () => syncWorkspace({ runtime: 'openclaw', workspace: wsB, target, alfHome: homeB, clock });
      await sb.write('MEMORY.md', '# M\n\n## A\none\n');
      const first = await syncA();
      await fs.cp(sb.workspace, wsB, { recursive: true });
      await fs.cp(sb.alfHome, homeB, { recursive: true });
      await sb.write('MEMORY.md', '# M\n\n## A\none\n\n## From A\nalpha\n');
      expect(await syncA()).toMatchObject({ sequence: 1 });

      await fs.writeFile(path.join(wsB, 'MEMORY.md'), '# M\n\n## A\none, edited on B\n');
      await fs.writeFile(path.join(wsB, 'USER.md'), '# User\nB only\n');
      // B recorded an upload on top of 0 that never reached the target: its sha256 is not entry 1's.
      await writeSent(wsB, first.agent.alf_agent_id, { base_sequence: 0, sha256: 'f'.repeat(64) });
      const error = await syncB().then(() => null, (e: unknown) => e as { code: string; message: string; hint: string });
      expect(error).toMatchObject({ code: 'sync_upload_failed' });
      expect(error!.message).toMatch(/at sequence 0, but .* is at sequence 1/);
      expect(error!.message).toMatch(/its entry after 0 is not the upload this machine sent \(sha256 ffffffffffff…\)/);
      expect(error!.hint).toContain(`lineage sync --rebase -r openclaw -w ${wsB} ${target.flags}`);

      const before = await readTree(wsB, []);
      const rebased = await rebaseWorkspace({ runtime: 'openclaw', workspace: wsB, target, alfHome: homeB, clock });
      expect(rebased).toMatchObject({ ok: true, rebased: true, sequence: 1, previous_sequence: 0, agent: { alf_agent_id: first.agent.alf_agent_id } });
      expect(await readTree(wsB, [])).toEqual(before); // the workspace, marker and agent id included, untouched

      // The next sync uploads B's real difference from sequence 1: A's section goes, B's edits come.
      const next = await syncB();
      expect(next).toMatchObject({ sequence: 2, delta: true, recovered: false, changes: { creates: 0, updates: 1, deletes: 1 }, raw: { changed: 2, deleted: 0 } });
      expect(await treeAt(target, sb, first.agent.alf_agent_id, 2)).toEqual(await readTree(wsB));
    });
  });

  it('a first sync whose state was never written adopts its snapshot; another machine\'s history still needs --rebase', async () => {
    await withSandbox(async (sb) => {
      const target = makeTarget(sb);
      const clock = steppingClock();
      const sync = (alfHome = sb.alfHome) => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome, clock });
      await sb.write('MEMORY.md', '# M\n\n## A\none\n');
      await sync();
      await fs.rm(sb.alfHome, { recursive: true }); // as if the state was never written
      expect(await sync()).toMatchObject({ sequence: 0, no_changes: true, recovered: true });

      // A second workspace copy that never uploaded anything: the E3 guard, whose hint is --rebase.
      const other = path.join(sb.root, 'ws-c');
      await fs.cp(sb.workspace, other, { recursive: true });
      await fs.rm(path.join(other, '.alf-synced.json'));
      const error = await syncWorkspace({ runtime: 'openclaw', workspace: other, target, alfHome: path.join(sb.root, 'home-c'), clock })
        .then(() => null, (e: unknown) => e as { code: string; hint: string });
      expect(error).toMatchObject({ code: 'registration_failed' });
      expect(error!.hint).toContain(`lineage sync --rebase -r openclaw -w ${other}`);
      await rebaseWorkspace({ runtime: 'openclaw', workspace: other, target, alfHome: path.join(sb.root, 'home-c'), clock });
      expect(await syncWorkspace({ runtime: 'openclaw', workspace: other, target, alfHome: path.join(sb.root, 'home-c'), clock })).toMatchObject({ sequence: 0, no_changes: true });
    });
  });
});

describe('the client state follows one target (target-mark.ts), over HTTP', () => {
  it('from the local data dir to the team server: a first sync there, then deltas; another key is another target; back is refused', async () => {
    await withSandbox(async (sb) => {
      const clock = steppingClock();
      const local = localTarget(sb.dataDir, clock);
      const serverA = httpTarget({ baseUrl: `${t.url}/v1`, apiKey: t.keyA });
      const serverB = httpTarget({ baseUrl: `${t.url}/v1`, apiKey: t.keyB });
      const sync = (target: SyncTarget) => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      const agentId = (await sync(local)).agent.alf_agent_id;
      // The workspace did not change; the server has nothing of the agent: a full snapshot there.
      expect(await sync(serverA)).toMatchObject({ sequence: 0, delta: false, no_changes: false });
      expect(await treeAt(serverA, sb, agentId, 0)).toEqual(await readTree(sb.workspace));
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
      expect(await sync(serverA)).toMatchObject({ sequence: 1, delta: true });
      // The same URL with another tenant's key is another target (the agent is not that key's to
      // read: a first sync there, which the server refuses, since the id is tenant A's).
      await expect(sync(serverB)).rejects.toMatchObject({ code: 'agent_id_taken' });
      expect(readTargetMark(sb.alfHome, agentId)).toBe(serverA.identity);
      expect(serverA.identity).not.toBe(serverB.identity);
      expect(await sync(serverA)).toMatchObject({ sequence: 1, no_changes: true });
      // Back to the local data dir, at sequence 0 of its own while this state is at the server's 1: refused.
      await expect(sync(local)).rejects.toMatchObject({ code: 'target_changed' });
      expect(await treeAt(serverA, sb, agentId, 1)).toEqual(await readTree(sb.workspace));
    });
  });
});
