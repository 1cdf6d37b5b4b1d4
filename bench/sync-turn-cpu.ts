/**
 * `npx tsx bench/sync-turn-cpu.ts --keep DIR [--turns 10000] [--reps 10] [--profile OUT]`: the
 * turn row's syncs, in CPU time, on a history built once and kept. The first run builds the
 * history into `DIR/base` (as `bench/sync-rows.ts` does, ~10 min at 10,000 turns); every run then
 * copies it to `DIR/run`, replays the generator to the history's end (same seed, no files written)
 * and runs `--reps` more turns through a real `syncWorkspace` into the same local data directory,
 * printing each turn's wall and CPU (user + system) time, and with `--profile` an inspector
 * profile of each turn (`OUT/turn-<i>.cpuprofile`, summed by `bench/profile-summary.ts`).
 * A developer's comparison tool, not a bench row: wall times here run unlocked.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { syncWorkspace } from '@/lib/sync/sync';
import { localTarget } from '@/lib/sync/local-target';
import { buildHistory } from './history/build';
import { WorkspaceHistory } from './history/generate';
import { applyTurn } from './history/replay';

const argv = process.argv.slice(2);
const value = (name: string) => { const i = argv.indexOf(`--${name}`); return i < 0 ? undefined : argv[i + 1]; };
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const keep = path.resolve(value('keep') ?? '/dev/shm/alf-sync-turn-cpu');
  const turns = Number(value('turns') ?? 10_000);
  const reps = Number(value('reps') ?? 10);
  const profileDir = value('profile');
  const base = path.join(keep, 'base');
  if (!fs.existsSync(path.join(keep, `built-${turns}`))) {
    fs.rmSync(keep, { recursive: true, force: true });
    fs.mkdirSync(base, { recursive: true });
    const history = await buildHistory({ root: base, turns, builder: 'pipeline', log });
    log(`history built in ${(history.buildMs / 1000).toFixed(1)} s`);
    fs.writeFileSync(path.join(keep, `built-${turns}`), '');
  }
  const run = path.join(keep, 'run');
  fs.rmSync(run, { recursive: true, force: true });
  fs.mkdirSync(run);
  for (const part of ['ws', 'alf-home', 'data']) execFileSync('cp', ['-a', path.join(base, part), run]);
  const gen = new WorkspaceHistory(turns, 42);
  for (let t = 0; t < turns; t++) gen.next();
  let clockNow = gen.timeOf(turns - 1);
  const clock = () => clockNow;
  const target = localTarget(path.join(run, 'data'), clock, { packing: 'inline' });
  const session = profileDir ? new Session() : null;
  if (session && profileDir) {
    fs.mkdirSync(profileDir, { recursive: true });
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
  }
  const cpus: number[] = [];
  for (let i = 1; i <= reps; i++) {
    const change = gen.next();
    clockNow = change.time;
    await applyTurn(path.join(run, 'ws'), change);
    if (session) await session.post('Profiler.start');
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const out = await syncWorkspace({ runtime: 'openclaw', workspace: path.join(run, 'ws'), target, alfHome: path.join(run, 'alf-home'), clock });
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    if (session && profileDir) {
      const { profile } = await session.post('Profiler.stop');
      fs.writeFileSync(path.join(profileDir, `turn-${i}.cpuprofile`), JSON.stringify(profile));
    }
    if (out.sequence !== change.turn) throw new Error(`turn ${change.turn} became sequence ${out.sequence}`);
    cpus.push((cpu.user + cpu.system) / 1000);
    log(`turn ${change.turn}: wall ${wall.toFixed(1)} ms, CPU ${(cpu.user / 1000).toFixed(1)} user + ${(cpu.system / 1000).toFixed(1)} system ms`);
  }
  const sorted = [...cpus].sort((a, b) => a - b);
  log(`median CPU ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(1)} ms over ${reps} turns`);
  session?.disconnect();
}

main().catch((error: Error) => {
  log(error.stack ?? error.message);
  process.exit(1);
});
