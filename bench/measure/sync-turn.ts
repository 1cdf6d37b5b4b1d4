/**
 * `sync_turn_vs_git_commit`: after the history is built, a few more turns of the same generator,
 * each synced with a real `syncWorkspace` (export of the whole workspace, base snapshot read and
 * rewritten, delta, ingest, index), against `git add -A && git commit` of the same change in the
 * git peer's work tree. This is the per-sync cost at the end of the history (what a 10,000-turn
 * build through real syncs pays on every turn).
 *
 * The first `WARMUP` turns are synced and committed the same way but not counted: the pipeline
 * builder leaves the client state as a `.alf` base, which the first real sync turns into the
 * client-state store (a one-time conversion, ~1 s at 1,265 files, that no turn of a history built
 * by real syncs pays), and the turns after it still run code the builder never ran, before the JIT
 * has compiled it (CPU per turn falls from ~80 to ~35 ms over the first ~10, bench/sync-turn-cpu.ts).
 * Their times are in the row's note.
 */
import type { BuiltHistory } from '../history/build';
import { applyTurn } from '../history/replay';
import type { BenchResult } from '../lib/result';
import { median, round, runTimed } from '../lib/stats';

const WARMUP = 10;

export async function measureSyncTurn(args: { history: BuiltHistory; turns: number; log: (l: string) => void }): Promise<BenchResult> {
  const ours: number[] = [];
  const git: number[] = [];
  for (let i = 0; i < WARMUP + args.turns; i++) {
    const { change, ms, sequence } = await args.history.realTurn();
    if (sequence !== change.turn) throw new Error(`extra turn ${change.turn} became sequence ${sequence}`);
    ours.push(ms);
    await applyTurn(args.history.gitRepo, change);
    const date = `${Math.floor(change.time.getTime() / 1000)} +0000`;
    const env = `GIT_AUTHOR_DATE='${date}' GIT_COMMITTER_DATE='${date}'`;
    git.push((await runTimed(`git add -A && ${env} git -c user.name=Atlas -c user.email=atlas@bench.invalid commit -q -m 'sync turn ${change.turn}'`, args.history.gitRepo)).ms);
  }
  const warm = { ours: ours.splice(0, WARMUP), git: git.splice(0, WARMUP) };
  const o = median(ours);
  const g = median(git);
  const size = args.history.sizes.at(-1)!;
  args.log(`  sync turn (real syncWorkspace at the end of the history): ${o.toFixed(1)} ms, git commit ${g.toFixed(1)} ms`);
  return {
    name: 'sync_turn_vs_git_commit', ours: round(o), peer: round(g), ratio: round(o / g), unit: 'ms (ratio = ours ÷ git add+commit)',
    note: `real syncWorkspace per turn after ${args.history.turns} turns (${size.files} files, ${(size.bytes / 1024).toFixed(0)} KiB); median of ${args.turns} (ours ${ours.map((ms) => ms.toFixed(0)).join(', ')} ms; git ${git.map((ms) => ms.toFixed(0)).join(', ')} ms) after ${WARMUP} not counted (ours ${warm.ours.map((ms) => ms.toFixed(0)).join(', ')} ms; git ${warm.git.map((ms) => ms.toFixed(0)).join(', ')} ms); projected ${(o * args.history.turns / 60000).toFixed(1)} min for ${args.history.turns} real syncs at this size`,
  };
}
