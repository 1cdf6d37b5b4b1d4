/**
 * `sync_50k_1pct` (issue 2): a 50,000-record OpenClaw store (500 files × 100 sections), a first sync,
 * then 1% of the sections edited in place and the next sync timed end to end with the real
 * `syncWorkspace` into a local data directory (export + reconcile + delta + ingest + index + client
 * state). Peer: `git add -A && git commit` of the same change in a repository of the same files.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { syncWorkspace } from '@/lib/sync/sync';
import { localTarget } from '@/lib/sync/local-target';
import { largeStore } from '../history/large-store';
import { BENCH_AGENT_ID } from '../history/replay';
import type { BenchResult } from '../lib/result';
import { median, round, runTimed } from '../lib/stats';

const GIT = 'git -c user.name=Bench -c user.email=bench@bench.invalid -c commit.gpgsign=false';

export async function measureSync50k(args: { root: string; files: number; sections: number; reps: number; log: (l: string) => void }): Promise<BenchResult[]> {
  const workspace = path.join(args.root, 'ws');
  const store = largeStore({ files: args.files, sections: args.sections });
  const records = args.files * args.sections;
  const onePct = Math.round(records / 100);
  let now = Date.parse('2026-06-01T00:00:00Z');
  const clock = () => new Date(now);
  const target = localTarget(path.join(args.root, 'data'), clock);
  const writeFiles = async (paths: Iterable<string>) => {
    for (const rel of paths) {
      const file = path.join(workspace, rel);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, store.render(rel));
      await fs.utimes(file, new Date(now), new Date(now));
    }
  };
  await fs.mkdir(workspace, { recursive: true });
  await fs.writeFile(path.join(workspace, '.alf-agent-id'), BENCH_AGENT_ID);
  await writeFiles(store.files.keys());
  await runTimed(`git init -q && printf '.alf-agent-id\\n.alf-synced.json\\n' >> .git/info/exclude`, workspace);
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome: path.join(args.root, 'alf-home'), clock });

  let t0 = performance.now();
  await sync();
  const firstOurs = performance.now() - t0;
  const firstGit = (await runTimed(`${GIT} add -A && ${GIT} commit -q -m first`, workspace)).ms;
  args.log(`  sync 50k: first sync ${firstOurs.toFixed(0)} ms (git add+commit ${firstGit.toFixed(0)} ms)`);

  const ours: number[] = [];
  const git: number[] = [];
  for (let r = 0; r < args.reps; r++) {
    now += 3600_000;
    const touched = store.editSections(onePct);
    await writeFiles(touched);
    t0 = performance.now();
    const out = await sync();
    ours.push(performance.now() - t0);
    const c = out.changes;
    if (!c || c.updates !== onePct || c.creates !== 0 || c.deletes !== 0) throw new Error(`sync 50k: expected ${onePct} updates, got ${JSON.stringify(c)}`);
    git.push((await runTimed(`${GIT} add -A && ${GIT} commit -q -m edit`, workspace)).ms);
    args.log(`  sync 50k: 1% edit (${touched.length} files) ours ${ours.at(-1)!.toFixed(0)} ms, git ${git.at(-1)!.toFixed(0)} ms`);
  }
  const o = median(ours);
  const g = median(git);
  return [
    {
      name: 'sync_50k_1pct', ours: round(o), peer: round(g), ratio: round(o / g), unit: 'ms (ratio = ours ÷ git add+commit)',
      goal: 'ours < 1000 ms', meets_goal: o < 1000,
      note: `${records} records in ${args.files} files; ${onePct} sections edited in place per run (→ exactly ${onePct} updates); real syncWorkspace end to end into a local data dir on ${args.root}; median of ${args.reps}`,
    },
    {
      name: 'sync_50k_first', ours: round(firstOurs), peer: round(firstGit), ratio: round(firstOurs / firstGit), unit: 'ms (ratio = ours ÷ git add+commit)',
      note: 'first sync (full snapshot) of the same store; one run',
    },
  ];
}
