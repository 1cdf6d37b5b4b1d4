/**
 * One sync of an agent at a time (agent-lock.ts), within one process: two syncs of one workspace
 * started together run one after the other; other agents' do not wait; a lock held too long is
 * `agent_busy`; a lock that cannot be made is no reason to refuse a sync.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SyncError } from './errors';
import { lockFile, syncLock, withAgentLock } from './agent-lock';
import { localTarget } from './local-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
  delete process.env.LINEAGE_SYNC_LOCK_WAIT_MS;
});

async function sandbox() {
  const sb = await makeSandbox('lineage-agent-lock-');
  cleanups.push(sb.cleanup);
  const target = localTarget(sb.dataDir, steppingClock());
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock: steppingClock() });
  const memory = (n: number) => sb.write('MEMORY.md', `# M\n\n${Array.from({ length: 40 }, (_, i) => `## Fact ${i}\nFact ${i}, version ${n}.\n`).join('\n')}`);
  return { sb, sync, memory };
}

it('two syncs of one workspace started together run one after the other: one uploads, the other finds nothing to do', async () => {
  const { sync, memory } = await sandbox();
  await memory(0);
  expect(await sync()).toMatchObject({ ok: true, sequence: 0 });
  for (let n = 1; n <= 3; n++) {
    await memory(n);
    const [a, b] = (await Promise.all([sync(), sync()])).sort((x, y) => Number(x.no_changes) - Number(y.no_changes));
    expect(a).toMatchObject({ ok: true, sequence: n, delta: true, no_changes: false });
    expect(b).toMatchObject({ ok: true, sequence: n, delta: false, no_changes: true });
  }
});

it('a holder of a lock keeps the others of its process out until it is done; a waiter past LINEAGE_SYNC_LOCK_WAIT_MS is agent_busy and does not run', async () => {
  const { sb } = await sandbox();
  const order: string[] = [];
  let release!: () => void;
  const first = withAgentLock({ alfHome: sb.alfHome, key: 'k', what: 'agent k' }, async () => {
    order.push('first');
    await new Promise<void>((resolve) => (release = resolve));
    order.push('first done');
  });
  const lines: string[] = [];
  const second = withAgentLock({ alfHome: sb.alfHome, key: 'k', what: 'agent k', log: (l) => lines.push(l) }, async () => void order.push('second'));
  process.env.LINEAGE_SYNC_LOCK_WAIT_MS = '50';
  const late = withAgentLock({ alfHome: sb.alfHome, key: 'k', what: 'agent k' }, async () => void order.push('late'));
  await expect(late).rejects.toMatchObject({ code: 'agent_busy', message: expect.stringMatching(/another lineage process \(a sync, a restore, a state export or a compaction\) still holds the sync state of agent k on this machine \(waited 50 ms for it\); nothing was read or written/) });
  await expect(late).rejects.toBeInstanceOf(SyncError);
  expect(lines).toEqual(['waiting for another lineage process to finish with the sync state of agent k on this machine']);
  release();
  await Promise.all([first, second]);
  expect(order).toEqual(['first', 'first done', 'second']);
  // Another key does not wait.
  process.env.LINEAGE_SYNC_LOCK_WAIT_MS = '0';
  let holding!: () => void;
  const held = withAgentLock({ alfHome: sb.alfHome, key: 'k', what: 'agent k' }, () => new Promise<void>((resolve) => (holding = resolve)));
  await expect(withAgentLock({ alfHome: sb.alfHome, key: 'other', what: 'agent other' }, async () => 'ran')).resolves.toBe('ran');
  holding();
  await held;
});

it('a lock that cannot be made (its directory is a file) does not stop a sync', async () => {
  const { sb, sync, memory } = await sandbox();
  await fs.mkdir(sb.alfHome, { recursive: true });
  await fs.writeFile(path.join(sb.alfHome, 'locks'), 'not a directory');
  await memory(0);
  expect(await sync()).toMatchObject({ ok: true, sequence: 0 });
  await memory(1);
  expect(await sync()).toMatchObject({ ok: true, sequence: 1, delta: true });
  expect(lockFile(sb.alfHome, 'x')).toBe(path.join(sb.alfHome, 'locks', 'x.lock'));
});

it('ZeroClaw and Hermes syncs lock their workspace by its real path, whatever agent alias they name', async () => {
  const { sb } = await sandbox();
  const link = path.join(sb.root, 'link');
  await fs.symlink(sb.workspace, link);
  const key = (workspace: string, runtimeAgent?: string, runtime: 'zeroclaw' | 'hermes' = 'zeroclaw') => syncLock({ runtime, workspace, runtimeAgent }, null).key;
  expect(key(link, 'scout')).toBe(key(sb.workspace, 'scout'));
  expect(key(`${sb.workspace}/.`, 'scout')).toBe(key(sb.workspace, 'scout'));
  // A sync without --runtime-agent syncs the brain.db's sole or first agent: the same lock as one naming it.
  expect(key(sb.workspace, 'scout')).toBe(key(sb.workspace));
  expect(key(sb.workspace, 'scout')).toBe(key(sb.workspace, 'ranger'));
  expect(key(sb.workspace)).not.toBe(key(path.join(sb.root, 'other-workspace')));
  expect(key(sb.workspace)).not.toBe(key(sb.workspace, undefined, 'hermes'));
  expect(syncLock({ runtime: 'openclaw', workspace: sb.workspace }, 'b43e5e5e-c4c7-5279-820c-ce778bc6eb22')).toEqual({ key: 'b43e5e5e-c4c7-5279-820c-ce778bc6eb22', what: 'agent b43e5e5e-c4c7-5279-820c-ce778bc6eb22' });
});
