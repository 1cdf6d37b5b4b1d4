/**
 * The background packer (a real `lineage pack-blobs` process) against deletes, at the moments
 * that matter: stopped (SIGSTOP) inside a step — its blob's packed form written, the whole file
 * not yet removed — while a delete of a base runs; killed there; stopped at random moments while
 * an agent's blobs and a single base are deleted. Nothing a delete spares may be lost, and nothing
 * it removes may come back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { requestPacking, startBackgroundPacker, waitForPacker } from './background-packer';
import { FsBlobStore, PACK_GROUP } from './blob-store';
import { crashBlobAt } from './packed-crash-data';
import { livePacker } from './packer-lock';
import { announcedStep, isStopped, startPackerProcess, waitUntil } from './testing/packer-process';

const dirs: string[] = [];
const packers: ReturnType<typeof startPackerProcess>[] = [];
afterEach(async () => {
  // A test that failed with its packer stopped: kill it, or it would hold its directory for ever.
  for (const packer of packers.splice(0)) {
    packer.child.kill('SIGKILL');
    await packer.exited;
  }
  for (const dir of dirs.splice(0)) {
    await waitUntil('no packer runs', () => livePacker(dir) === null);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function packerProcess(dataDir: string, env: Record<string, string> = {}): ReturnType<typeof startPackerProcess> {
  const packer = startPackerProcess(dataDir, env);
  packers.push(packer);
  return packer;
}

const keyOf = (agent: string, seq: number) => `${agent}/${seq}-k.alf-delta`;

/** A data directory whose agents' blobs were stored whole (deferred), `groups` complete groups each plus the next one's first blob. */
async function wholeData(agents: string[], groups = 1): Promise<{ dataDir: string; root: string; keys: string[] }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'packer-races-'));
  dirs.push(dataDir);
  const root = path.join(dataDir, 'blobs');
  const store = new FsBlobStore(root, { pack: 'deferred' });
  const keys: string[] = [];
  for (const agent of agents) {
    for (let seq = 0; seq <= groups * PACK_GROUP; seq++) {
      await store.put(keyOf(agent, seq), crashBlobAt(seq));
      keys.push(keyOf(agent, seq));
    }
  }
  requestPacking(dataDir);
  return { dataDir, root, keys };
}

/** Every spared key reads back as put (through a fresh store); every deleted one has no file left; no mark or announcement stays. */
async function expectExact(root: string, spared: string[], deleted: string[]): Promise<void> {
  const store = new FsBlobStore(root);
  expect(await store.list()).toEqual([...spared].sort());
  for (const key of spared) {
    const seq = Number(/\/(\d+)-/.exec(key)![1]);
    expect(Buffer.from(await store.get(key)).equals(Buffer.from(crashBlobAt(seq))), key).toBe(true);
  }
  const names = fs.readdirSync(root);
  for (const key of deleted) expect(names.filter((n) => n.startsWith(key.split('/').join('~'))), key).toEqual([]);
  expect(names.filter((n) => /\.(deleting|packing-\d+)$/.test(n))).toEqual([]);
}

/** Settles within a grace period, or is still waiting (what a delete behind a stopped packer must be). */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<'settled' | 'waiting'> {
  return Promise.race([promise.then(() => 'settled' as const, () => 'settled' as const), new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), ms))]);
}

it('a delete of a base waits for the packer stopped in its step, then rewrites the packed blob whole before the base goes', async () => {
  const { dataDir, root, keys } = await wholeData(['agent-a']);
  const packer = packerProcess(dataDir, { LINEAGE_PACKER_STOP_AT: 'step' });
  await waitUntil('the packer stops in its step', () => isStopped(packer.child.pid!));
  const step = announcedStep(root)!;
  // The packed form is written, the whole file still there: the state a delete must not overtake.
  expect(fs.existsSync(path.join(root, `${step.key.split('/').join('~')}.packed`))).toBe(true);
  const base = step.bases.at(-1)!;
  const deleting = new FsBlobStore(root).deleteMany([base]);
  // The grace period only gives a delete that does not wait the time to finish (and the test to fail).
  expect(await settledWithin(deleting, 1500)).toBe('waiting');
  packer.child.kill('SIGCONT');
  await deleting;
  expect(await packer.exited).toBe(0);
  await expectExact(root, keys.filter((k) => k !== base), [base]);
}, 180_000);

it('a packer killed in its step: the delete goes on (its pid is gone), and the next packer finishes the pass', async () => {
  const { dataDir, root, keys } = await wholeData(['agent-a']);
  const packer = packerProcess(dataDir, { LINEAGE_PACKER_STOP_AT: 'step' });
  await waitUntil('the packer stops in its step', () => isStopped(packer.child.pid!));
  const base = announcedStep(root)!.bases[0]!;
  packer.child.kill('SIGKILL');
  await packer.exited;
  await new FsBlobStore(root).deleteMany([base]);
  await expectExactExceptLeftovers(root, keys.filter((k) => k !== base));
  // The request stays taken and the lock stale: the next start breaks it and finishes.
  expect(startBackgroundPacker(dataDir)).toBe('started');
  await waitForPacker(dataDir);
  await expectExact(root, keys.filter((k) => k !== base), [base]);
  expect(fs.readdirSync(root).filter((n) => n.endsWith('.packed')).length).toBeGreaterThan(PACK_GROUP / 2);
}, 180_000);

/** As expectExact, before a packer has removed what a killed one left (its announcement, its temp files). */
async function expectExactExceptLeftovers(root: string, spared: string[]): Promise<void> {
  const store = new FsBlobStore(root);
  expect(await store.list()).toEqual([...spared].sort());
  for (const key of spared) expect(Buffer.from(await store.get(key)).equals(Buffer.from(crashBlobAt(Number(/\/(\d+)-/.exec(key)![1])))), key).toBe(true);
}

it('deletes (a whole agent, and a single base of another) while the packer is stopped at random moments lose nothing they spare and leave nothing they remove', async () => {
  for (let round = 0; round < 4; round++) {
    const { dataDir, root, keys } = await wholeData(['agent-a', 'agent-b'], 2);
    const packer = packerProcess(dataDir);
    await waitUntil('the packer holds the lock', () => livePacker(dataDir) !== null || packer.child.exitCode !== null);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
    packer.child.kill('SIGSTOP');
    const doomed = [...keys.filter((k) => k.startsWith('agent-b/')), keyOf('agent-a', PACK_GROUP + 3)];
    const deleting = new FsBlobStore(root).deleteMany(doomed);
    await settledWithin(deleting, 300);
    packer.child.kill('SIGCONT');
    await deleting;
    expect(await packer.exited).toBe(0);
    await expectExact(root, keys.filter((k) => !doomed.includes(k)), doomed);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 300_000);
