/**
 * `sync_50k_1pct` (issue 2): a 50,000-record OpenClaw store (500 files × 100 sections), a first sync,
 * then 1% of the sections edited in place and the next sync timed end to end with the real
 * `syncWorkspace` into a local data directory (export + reconcile + delta + ingest + index + client
 * state). Peer: `git add -A && git commit` of the same change in a repository of the same files.
 *
 * `npm run bench` runs it in a process of its own (`measureSync50kInChild`), as a `lineage sync`
 * runs: not in the bench's process, whose heap by then holds a 10,000-turn history that every
 * garbage collection of the sync would walk. The git commands run in a shell started before the
 * store is built (`startPeerShell`): forking a child from this process before each sync would make
 * the sync pay a page fault for every page it writes next (about 25,000 of them here).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs/promises';
import path from 'node:path';
import { syncWorkspace } from '@/lib/sync/sync';
import { localTarget } from '@/lib/sync/local-target';
import { largeStore } from '../history/large-store';
import { BENCH_AGENT_ID } from '../history/replay';
import type { BenchResult } from '../lib/result';
import { startPeerShell } from '../lib/shell';
import { median, round } from '../lib/stats';

const GIT = 'git -c user.name=Bench -c user.email=bench@bench.invalid -c commit.gpgsign=false';

export async function measureSync50k(args: { root: string; files: number; sections: number; reps: number; log: (l: string) => void }): Promise<BenchResult[]> {
  const shell = startPeerShell();
  try {
    return await measureWith(shell, args);
  } finally {
    shell.close();
  }
}

async function measureWith(shell: ReturnType<typeof startPeerShell>, args: { root: string; files: number; sections: number; reps: number; log: (l: string) => void }): Promise<BenchResult[]> {
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
  await shell.run(`git init -q && printf '.alf-agent-id\\n.alf-synced.json\\n' >> .git/info/exclude`, workspace);
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome: path.join(args.root, 'alf-home'), clock });

  let t0 = performance.now();
  await sync();
  const firstOurs = performance.now() - t0;
  const firstGit = (await shell.run(`${GIT} add -A && ${GIT} commit -q -m first`, workspace)).ms;
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
    git.push((await shell.run(`${GIT} add -A && ${GIT} commit -q -m edit`, workspace)).ms);
    args.log(`  sync 50k: 1% edit (${touched.length} files) ours ${ours.at(-1)!.toFixed(0)} ms, git ${git.at(-1)!.toFixed(0)} ms`);
  }
  const o = median(ours);
  const g = median(git);
  return [
    {
      name: 'sync_50k_1pct', ours: round(o), peer: round(g), ratio: round(o / g), unit: 'ms (ratio = ours ÷ git add+commit)',
      goal: 'ours < 1000 ms', meets_goal: o < 1000,
      note: `${records} records in ${args.files} files; ${onePct} sections edited in place per run (→ exactly ${onePct} updates); real syncWorkspace end to end into a local data dir on ${args.root}, in a process of its own (as lineage sync runs), git run from a shell started beforehand (no fork from the measuring process); median of ${args.reps} (runs: ${ours.map((ms) => ms.toFixed(0)).join(', ')} ms; the first 1% sync of a process runs code the first sync did not, before the JIT has compiled it)`,
    },
    {
      name: 'sync_50k_first', ours: round(firstOurs), peer: round(firstGit), ratio: round(firstOurs / firstGit), unit: 'ms (ratio = ours ÷ git add+commit)',
      note: 'first sync (full snapshot) of the same store; one run',
    },
  ];
}

/** measureSync50k in a fresh process (see the file comment); its log lines come through `log`. */
export async function measureSync50kInChild(args: { root: string; files: number; sections: number; reps: number; log: (l: string) => void }): Promise<BenchResult[]> {
  const tsx = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin/tsx');
  const child = spawn(tsx, [fileURLToPath(import.meta.url), '--child', JSON.stringify({ root: args.root, files: args.files, sections: args.sections, reps: args.reps })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    const lines = stderr.split('\n');
    stderr = lines.pop()!;
    for (const line of lines) args.log(line);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`sync 50k measure exited with ${code}: ${stderr}`);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as BenchResult[];
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = JSON.parse(process.argv[3]!) as { root: string; files: number; sections: number; reps: number };
  measureSync50k({ ...options, log: (line) => process.stderr.write(`${line}\n`) })
    .then((results) => process.stdout.write(`${JSON.stringify(results)}\n`))
    .catch((error: Error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exit(1);
    });
}
