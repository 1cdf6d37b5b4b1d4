/**
 * `npx tsx bench/sync-profile.ts --out DIR [--turns N] [--skip-50k] [--skip-turn]`: where a sync's
 * time goes, the upload and ingest half apart. The same syncs as `bench/sync-rows.ts` (the 50k
 * store's first sync and three 1% edits; `--turns N` extra turns after an N-turn history), each
 * profiled on its own through the inspector (`DIR/<row>-<i>.cpuprofile`), and each timed as a
 * whole, in its upload (the local target's `putSnapshot` / `pushDelta`: the ingest) and in CPU.
 * Summaries: `npx tsx bench/profile-summary.ts DIR/<file>.cpuprofile`. Not a bench row: the
 * profiler slows what it measures.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { waitForIndexCaughtUp } from '@/lib/history/pending-index';
import { openLedger } from '@/lib/ledger/ledger';
import { syncWorkspace } from '@/lib/sync/sync';
import { localTarget } from '@/lib/sync/local-target';
import type { SyncTarget } from '@/lib/sync/target';
import { buildHistory } from './history/build';
import { largeWorkspace } from './history/large-store';
import { BENCH_AGENT_ID } from './history/replay';

const argv = process.argv.slice(2);
const value = (name: string) => { const i = argv.indexOf(`--${name}`); return i < 0 ? undefined : argv[i + 1]; };
const out = path.resolve(value('out') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'alf-sync-profile-')));
const log = (line: string) => process.stderr.write(`${line}\n`);

/** The target with its uploads timed (the ingest, as the local target runs it in this process). */
function timedTarget(target: SyncTarget): { target: SyncTarget; upload: () => number } {
  let ms = 0;
  const time = <A extends unknown[], T>(fn: (...a: A) => Promise<T>) => async (...a: A): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn(...a);
    } finally {
      ms += performance.now() - t0;
    }
  };
  return {
    target: { ...target, putSnapshot: time(target.putSnapshot), pushDelta: time(target.pushDelta) },
    upload: () => { const v = ms; ms = 0; return v; },
  };
}

async function profiled(session: Session, name: string, upload: () => number, run: () => Promise<unknown>): Promise<void> {
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  upload();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const { profile } = await session.post('Profiler.stop');
  fs.writeFileSync(path.join(out, `${name}.cpuprofile`), JSON.stringify(profile));
  log(`${name}: wall ${wall.toFixed(0)} ms, upload (ingest) ${upload().toFixed(0)} ms, CPU user ${(cpu.user / 1000).toFixed(0)} ms + system ${(cpu.system / 1000).toFixed(0)} ms`);
}

async function main(): Promise<void> {
  fs.mkdirSync(out, { recursive: true });
  const session = new Session();
  session.connect();
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  if (!argv.includes('--skip-50k')) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'alf-sync-profile-50k-'));
    try {
      let now = Date.parse('2026-06-01T00:00:00Z');
      const clock = () => new Date(now);
      const { target, upload } = timedTarget(localTarget(path.join(root, 'data'), clock));
      const { workspace, edit } = largeWorkspace({ root, agentId: BENCH_AGENT_ID, now: () => now });
      const sync = () => syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome: path.join(root, 'home', '.alf'), clock });
      // A large entry's fold runs in a detached process after the sync (as for `lineage sync`): waited for, unprofiled.
      const folded = () => waitForIndexCaughtUp(openLedger(path.join(root, 'data')));
      await profiled(session, '50k-first', upload, sync);
      await folded();
      for (let i = 1; i <= 3; i++) {
        now += 3600_000;
        edit(500);
        await profiled(session, `50k-1pct-${i}`, upload, sync);
        await folded();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  if (!argv.includes('--skip-turn')) {
    const root = fs.mkdtempSync(path.join(base, 'alf-sync-profile-turn-'));
    try {
      const history = await buildHistory({ root, turns: Number(value('turns') ?? 2000), builder: 'pipeline', log });
      // realTurn syncs through the history's own target: its ingest is seen in the profile only.
      for (let i = 1; i <= 10; i++) await profiled(session, `turn-${i}`, () => 0, () => history.realTurn());
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  session.disconnect();
  log(`profiles in ${out}`);
}

main().catch((error: Error) => {
  log(error.stack ?? error.message);
  process.exit(1);
});
