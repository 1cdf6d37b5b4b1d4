/**
 * The background packer with the processes a user runs: a `lineage sync` that completes a packing
 * group exits while its packer is still stopped (detached, not waited for), later syncs beside it
 * start no second one; what syncs left whole (packing off, or a packer that never ran) is packed
 * by `lineage serve`'s maintenance and by `lineage doctor --repair`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { packingPending, waitForPacker } from '@/lib/ledger/background-packer';
import { livePacker } from '@/lib/ledger/packer-lock';
import { hasExited, isStopped, waitUntil } from '@/lib/ledger/testing/packer-process';
import { PACK_GROUP } from '@/lib/ledger';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { spawnServer } from '../server/harness';
import { runCli } from './run-cli';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** MEMORY.md as of sync `seq`: every sync changes it. */
const memory = (seq: number) => `# Memory\n\n${Array.from({ length: seq + 3 }, (_, i) => `## Fact ${i}\nThe value of fact ${i} is ${i * 7 + seq}.\n`).join('\n')}`;

/** A sandbox whose agent has `count` syncs (in this process), its client state where `lineage sync` with ALF_HOME=<root>/home keeps it. */
async function synced(count: number, env: Record<string, string> = {}) {
  const sb = await makeSandbox('lineage-bgpack-');
  cleanups.push(async () => {
    // A test that failed with its packer stopped: kill it, or it would hold the directory for ever.
    const stopped = livePacker(sb.dataDir);
    if (stopped !== null && isStopped(stopped)) process.kill(stopped, 'SIGKILL');
    await waitUntil('no packer runs', () => livePacker(sb.dataDir) === null);
    await sb.cleanup();
  });
  const home = path.join(sb.root, 'home');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    for (let seq = 0; seq < count; seq++) {
      await sb.write('MEMORY.md', memory(seq));
      await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: path.join(home, '.alf'), clock });
    }
  } finally {
    for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key];
  }
  const packed = () => fs.readdirSync(path.join(sb.dataDir, 'blobs')).filter((n) => n.endsWith('.packed')).length;
  return { sb, home, packed };
}

it('a lineage sync that completes a group exits while its packer is still stopped; syncs beside it start no second packer; the one packer packs the group', async () => {
  const { sb, home, packed } = await synced(PACK_GROUP);
  const log = path.join(sb.root, 'packer.log');
  const env = { ALF_HOME: home, LINEAGE_PACKER_STOP_AT: 'locked', LINEAGE_PACKER_LOG: log };
  const cliSync = async (seq: number) => {
    await sb.write('MEMORY.md', memory(seq));
    const run = await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], env);
    expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: seq });
  };
  await cliSync(PACK_GROUP);
  // The sync has exited; the packer it started takes the lock and stops there.
  await waitUntil('a packer holds the lock', () => livePacker(sb.dataDir) !== null);
  const pid = livePacker(sb.dataDir)!;
  await waitUntil('the packer stops, holding the lock', () => isStopped(pid));
  await cliSync(PACK_GROUP + 1);
  await cliSync(PACK_GROUP + 2);
  expect(packed()).toBe(0);
  process.kill(pid, 'SIGCONT');
  await waitForPacker(sb.dataDir);
  const runs = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { pid: number; packed: number });
  expect(runs.map((r) => r.pid)).toEqual([pid]);
  expect(runs[0]!.packed).toBeGreaterThan(PACK_GROUP / 2);
  expect(packed()).toBe(runs[0]!.packed);
  const doctor = await runCli(['doctor', '--data', sb.dataDir]);
  expect(doctor.json).toMatchObject({ ok: true, damaged: [], unledgered: [] });
}, 300_000);

it('the packer logs its run before it lets its lock go: once waitForPacker returns, the line is there, even with the packer stopped just after', async () => {
  const { sb, home, packed } = await synced(PACK_GROUP);
  const log = path.join(sb.root, 'packer.log');
  await sb.write('MEMORY.md', memory(PACK_GROUP));
  const run = await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], { ALF_HOME: home, LINEAGE_PACKER_STOP_AT: 'released', LINEAGE_PACKER_LOG: log });
  expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: PACK_GROUP });
  await waitForPacker(sb.dataDir);
  expect(fs.existsSync(log)).toBe(true);
  const runs = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { pid: number; packed: number; ran: boolean });
  expect(runs).toHaveLength(1);
  expect(runs[0]!).toMatchObject({ ran: true });
  expect(runs[0]!.packed).toBe(packed());
  expect(runs[0]!.packed).toBeGreaterThan(PACK_GROUP / 2);
  const { pid } = runs[0]!;
  await waitUntil('the packer stops after letting its lock go', () => isStopped(pid));
  process.kill(pid, 'SIGCONT');
  await waitUntil('the packer exits', () => hasExited(pid));
}, 300_000);

it('blobs left whole with packing off are packed by lineage serve (its maintenance starts the packer) and by lineage doctor --repair', async () => {
  const { sb, packed } = await synced(PACK_GROUP + 1, { LINEAGE_BLOB_PACKING: '0' });
  expect(packed()).toBe(0);
  expect(packingPending(sb.dataDir)).toBe(false);
  const copy = path.join(sb.root, 'data-copy');
  fs.cpSync(sb.dataDir, copy, { recursive: true });

  const server = await spawnServer(sb.dataDir);
  cleanups.unshift(() => server.stop());
  await waitUntil('the packer has run', () => packed() > 0 && !packingPending(sb.dataDir) && livePacker(sb.dataDir) === null);
  expect(packed()).toBeGreaterThan(PACK_GROUP / 2);

  const plain = await runCli(['doctor', '--data', copy]);
  expect(plain.json).not.toHaveProperty('packing');
  const repair = await runCli(['doctor', '--repair', '--data', copy]);
  expect(repair.json).toMatchObject({ ok: true, packing: { packed: packed() } });
  expect(fs.readdirSync(path.join(copy, 'blobs')).filter((n) => n.endsWith('.packed')).length).toBe(packed());
  const again = await runCli(['doctor', '--repair', '--data', copy]);
  expect(again.json).toMatchObject({ ok: true, packing: { packed: 0, considered: 0 } });
}, 300_000);
