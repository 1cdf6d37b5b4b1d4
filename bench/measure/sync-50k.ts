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
import { waitForIndexCaughtUp } from '@/lib/history/pending-index';
import { openLedger } from '@/lib/ledger/ledger';
import { syncWorkspace } from '@/lib/sync/sync';
import { localTarget } from '@/lib/sync/local-target';
import { largeStore } from '../history/large-store';
import { BENCH_AGENT_ID } from '../history/replay';
import type { BenchResult } from '../lib/result';
import { startPeerShell } from '../lib/shell';
import { median, round } from '../lib/stats';

const GIT = 'git -c user.name=Bench -c user.email=bench@bench.invalid -c commit.gpgsign=false';

/** A new repository of the workspace (the shell's directory) whose git directory is `gitDir`: its `init` and its first commit. */
function newRepository(gitDir: string): { init: string; firstCommit: string } {
  const dir = JSON.stringify(gitDir);
  const git = (command: string) => `${GIT} --git-dir=${dir} --work-tree=. ${command}`;
  return {
    init: `git --git-dir=${dir} --work-tree=. init -q && printf '.alf-agent-id\\n.alf-synced.json\\n' >> ${dir}/info/exclude`,
    firstCommit: `${git('add -A')} && ${git('commit -q -m first')}`,
  };
}

/** A note's list of run times. */
const runs = (ms: readonly number[]) => ms.map((t) => t.toFixed(0)).join(', ');

/** The store's shape, in-process syncs measured, `lineage sync` processes measured after them. */
export interface Sync50kArgs {
  root: string;
  files: number;
  sections: number;
  reps: number;
  /** `lineage sync` processes after the in-process syncs (none if absent). */
  cliReps?: number;
  log: (l: string) => void;
}

export async function measureSync50k(args: Sync50kArgs): Promise<BenchResult[]> {
  const shell = startPeerShell();
  try {
    return await measureWith(shell, args);
  } finally {
    shell.close();
  }
}

async function measureWith(shell: ReturnType<typeof startPeerShell>, args: Sync50kArgs): Promise<BenchResult[]> {
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
  // Client state where `lineage sync` keeps it for ALF_HOME=<root>/home: the CLI runs below continue this history.
  const home = path.join(args.root, 'home');
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome: path.join(home, '.alf'), clock });
  // A large entry's fold into the history index runs in a detached `lineage index --catch-up` after
  // the sync returns (lib/history/pending-index.ts). A user's syncs are minutes apart: after each
  // measured sync the bench waits, untimed, until it is done (else the next sync would fold it itself
  // first, and git would be timed beside it), and logs when it finished after the sync returned.
  const folds: number[] = [];
  const folded = async (returnedAt: number) => {
    await waitForIndexCaughtUp(openLedger(path.join(args.root, 'data')));
    folds.push(performance.now() - returnedAt);
  };

  // Each timed command starts once the disk has written back what the one before it wrote
  // (`sync`, untimed): git's timings otherwise rose run after run behind our own writes.
  const settle = () => shell.run('sync', workspace);

  await settle();
  let t0 = performance.now();
  await sync();
  const firstOurs = performance.now() - t0;
  await folded(performance.now());
  await settle();
  const firstGit = (await shell.run(`${GIT} add -A && ${GIT} commit -q -m first`, workspace)).ms;
  args.log(`  sync 50k: first sync ${firstOurs.toFixed(0)} ms (git add+commit ${firstGit.toFixed(0)} ms; index folded in the background ${folds.at(-1)!.toFixed(0)} ms after the sync returned)`);

  const ours: number[] = [];
  const git: number[] = [];
  for (let r = 0; r < args.reps; r++) {
    now += 3600_000;
    const touched = store.editSections(onePct);
    await writeFiles(touched);
    await settle();
    t0 = performance.now();
    const out = await sync();
    ours.push(performance.now() - t0);
    await folded(performance.now());
    const c = out.changes;
    if (!c || c.updates !== onePct || c.creates !== 0 || c.deletes !== 0) throw new Error(`sync 50k: expected ${onePct} updates, got ${JSON.stringify(c)}`);
    await settle();
    git.push((await shell.run(`${GIT} add -A && ${GIT} commit -q -m edit`, workspace)).ms);
    args.log(`  sync 50k: 1% edit (${touched.length} files) ours ${ours.at(-1)!.toFixed(0)} ms, git ${git.at(-1)!.toFixed(0)} ms (index folded ${folds.at(-1)!.toFixed(0)} ms after)`);
  }
  // The same sync as a user runs it: a fresh `lineage sync` process (the package's bin, the CLI from
  // its bundle), start-up, database open and exit included, from the shell that runs git.
  const cli: number[] = [];
  const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/lineage.cjs');
  const command = `ALF_HOME=${JSON.stringify(home)} ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} sync -r openclaw -w ${JSON.stringify(workspace)} --data ${JSON.stringify(path.join(args.root, 'data'))} 2>/dev/null`;
  const cliReps = args.cliReps ?? 0;
  if (cliReps > 0) await shell.run(`${command} >/dev/null || true`, workspace); // builds the CLI bundle if the sources changed (no edit: an idle sync)
  for (let r = 0; r < cliReps; r++) {
    now += 3600_000;
    await writeFiles(store.editSections(onePct));
    await settle();
    const run = await shell.run(command, workspace);
    const returned = performance.now();
    const out = JSON.parse(run.stdout.trim().split('\n').pop()!) as { changes?: { updates: number } };
    if (out.changes?.updates !== onePct) throw new Error(`sync 50k CLI: expected ${onePct} updates, got ${run.stdout}`);
    cli.push(run.ms);
    await folded(returned);
    args.log(`  sync 50k: 1% edit, lineage sync process ${run.ms.toFixed(0)} ms (index folded ${folds.at(-1)!.toFixed(0)} ms after it exited)`);
  }
  const floor = cliReps > 0
    ? await measureCommitFloor(shell, { workspace, root: args.root, reps: cliReps, log: args.log, edit: async () => { now += 3600_000; await writeFiles(store.editSections(onePct)); } })
    : [];
  if (cliReps > 0) {
    // The floor's edits synced (untimed), so that the idle rows find nothing changed.
    await shell.run(`${command} >/dev/null`, workspace);
    await folded(performance.now());
  }
  const idle = cliReps > 0 ? await measureIdle(shell, command, workspace, args) : [];
  const resident = cliReps > 0
    ? await measureResident(shell, {
      command, bin, home, workspace, dataDir: path.join(args.root, 'data'), reps: cliReps, onePct, gitMs: median(git), log: args.log,
      edit: async () => { now += 3600_000; await writeFiles(store.editSections(onePct)); await settle(); },
      folded: () => folded(performance.now()),
    })
    : [];
  const firstCli = cliReps > 0 ? await measureFirstCli(shell, bin, workspace, args) : [];
  const o = median(ours);
  const g = median(git);
  const cliResult: BenchResult[] = cli.length === 0 ? [] : [{
    name: 'sync_50k_1pct_cli', ours: round(median(cli)), peer: round(g), ratio: round(median(cli) / g), unit: 'ms (ratio = ours ÷ git add+commit)',
    note: `the same 1% sync as a fresh \`lineage sync\` process (bin/lineage.cjs, the CLI from its JavaScript bundle), start-up, database open and exit included, run from the same shell as git; median of ${cli.length} (runs: ${runs(cli)} ms)`,
  }];
  return [
    {
      name: 'sync_50k_1pct', ours: round(o), peer: round(g), ratio: round(o / g), unit: 'ms (ratio = ours ÷ git add+commit)',
      goal: 'ours < 1000 ms', meets_goal: o < 1000,
      note: `${records} records in ${args.files} files; ${onePct} sections edited in place per run (→ exactly ${onePct} updates); real syncWorkspace end to end into a local data dir on ${args.root}, in a process of its own (as lineage sync runs), git run from a shell started beforehand (no fork from the measuring process); median of ${args.reps} (runs: ${runs(ours)} ms; the first 1% sync of a process runs code the first sync did not, before the JIT has compiled it)`,
    },
    ...cliResult,
    ...resident,
    ...floor,
    ...idle,
    ...firstCli,
    {
      name: 'sync_50k_first', ours: round(firstOurs), peer: round(firstGit), ratio: round(firstOurs / firstGit), unit: 'ms (ratio = ours ÷ git add+commit)',
      note: `first sync (full snapshot) of the same store; one run; its fold into the history index ran in a detached \`lineage index --catch-up\` and was done ${folds[0]!.toFixed(0)} ms after the sync returned (git's commit ran after it)${againstNewRepositories(firstOurs, firstCli)}`,
    },
  ];
}

/**
 * `sync_50k_1pct_resident`: the same 1% sync as a `lineage sync` process that a running `lineage
 * watch --on-demand` of the workspace serves (bin/resident-client.cjs): the process starts, asks
 * the watch, and the watch runs the sync in its warm process. One untimed sync first (a watch that
 * has synced before); each timed run is checked to have been served by the watch.
 */
async function measureResident(shell: ReturnType<typeof startPeerShell>, args: {
  command: string; bin: string; home: string; workspace: string; dataDir: string; reps: number; onePct: number; gitMs: number;
  log: (line: string) => void; edit: () => Promise<void>; folded: () => Promise<void>;
}): Promise<BenchResult[]> {
  const watch = spawn(process.execPath, [args.bin, 'watch', '--on-demand', '-r', 'openclaw', '-w', args.workspace, '--data', args.dataDir], {
    env: { ...process.env, ALF_HOME: args.home }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const served = () => stderr.split('ran a lineage sync for another process').length - 1;
  const exited = new Promise<void>((resolve) => watch.on('close', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      watch.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('serving lineage sync on')) resolve();
      });
      void exited.then(() => reject(new Error(`sync 50k resident: the watch ended: ${stderr}`)));
    });
    const ms: number[] = [];
    for (let r = -1; r < args.reps; r++) {
      await args.edit();
      const before = served();
      const run = await shell.run(args.command, args.workspace);
      const out = JSON.parse(run.stdout.trim().split('\n').pop()!) as { changes?: { updates: number } };
      if (out.changes?.updates !== args.onePct) throw new Error(`sync 50k resident: expected ${args.onePct} updates, got ${run.stdout}`);
      await args.folded();
      if (served() !== before + 1) throw new Error('sync 50k resident: the lineage sync was not served by the watch');
      if (r >= 0) ms.push(run.ms);
      args.log(`  sync 50k: 1% edit, lineage sync served by a lineage watch ${run.ms.toFixed(0)} ms${r < 0 ? ' (untimed: the watch\'s first)' : ''}`);
    }
    // Idle, as a user's \`lineage sync\` finds the workspace after a watch that syncs on change did its work.
    const idle: number[] = [];
    const status: number[] = [];
    await shell.run(`${GIT} add -A && ${GIT} commit -q -m resident`, args.workspace);
    for (let r = 0; r < 5; r++) {
      const before = served();
      const run = await shell.run(args.command, args.workspace);
      if (!/"no_changes":true/.test(run.stdout) || served() !== before + 1) throw new Error(`sync 50k resident idle: expected an idle sync served by the watch, got ${run.stdout}`);
      idle.push(run.ms);
      status.push((await shell.run('git status --porcelain', args.workspace)).ms);
    }
    args.log(`  sync 50k: idle lineage sync served by a lineage watch ${median(idle).toFixed(0)} ms, git status --porcelain ${median(status).toFixed(0)} ms`);
    const o = median(ms);
    return [{
      name: 'sync_idle_resident', ours: round(median(idle)), peer: round(median(status)), ratio: round(median(idle) / median(status)), unit: 'ms (ratio = ours ÷ git status --porcelain)',
      note: `informational: an idle \`lineage sync\` process served by the same watch (every file unchanged by its stat data), as a user's sync finds a workspace a watch that syncs on change has synced; median of 5 (runs: ${runs(idle)} ms; git: ${runs(status)} ms)`,
    }, {
      name: 'sync_50k_1pct_resident', ours: round(o), peer: round(args.gitMs), ratio: round(o / args.gitMs), unit: 'ms (ratio = ours ÷ git add+commit)',
      note: `the same 1% sync as a \`lineage sync\` process that a running \`lineage watch --on-demand\` serves: the process starts (Node, bin/resident-client.cjs), asks the watch over its socket, and the watch runs the sync in its warm process and relays the output; after one untimed served sync; median of ${ms.length} (runs: ${runs(ms)} ms); git as in sync_50k_1pct`,
    }];
  } finally {
    watch.kill('SIGTERM');
    await exited;
  }
}

/**
 * `commit_floor_*`, informational: git's own work done by a Node process (`commit-floor.mjs`: stat
 * data, changed files read and hashed, objects, trees, commit, index; no memory parsed, nothing
 * ingested), against git on the same tree in the same run, from the same shell, each floor run
 * followed by git's. `_first`: each into a new store, against git's first commit into a new
 * repository. `_1pct`: 1% edits like the CLI rows', each committed by both (the floor's store
 * continuing from its last first commit). Each with its objects as loose files, as git writes them,
 * and in one pack file (`_pack`), as a sync writes its change: one archive. Where the environment
 * sets NODE_EXTRA_CA_CERTS (see `node_start`), the 1% pack floor is measured without it too.
 */
async function measureCommitFloor(shell: ReturnType<typeof startPeerShell>, args: { workspace: string; root: string; reps: number; log: (l: string) => void; edit: () => Promise<void> }): Promise<BenchResult[]> {
  const script = JSON.stringify(path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'commit-floor.mjs'));
  const node = JSON.stringify(process.execPath);
  const floor = async (store: string, options: { pack: boolean; env?: string }) => {
    const run = await shell.run(`${options.env ?? ''}${node} ${script} . ${JSON.stringify(store)}${options.pack ? ' --pack' : ''}`, args.workspace);
    const out = JSON.parse(run.stdout.trim().split('\n').pop()!) as { read: number };
    return { ms: run.ms, read: out.read };
  };
  /** The floor, then git, on the tree as it is (`first`: a new store and a new repository each). */
  const measure = async (kind: 'first' | '1pct', options: { pack: boolean; env?: string }) => {
    const m = { ours: [] as number[], git: [] as number[] };
    for (let r = 0; r < (kind === 'first' ? 3 : args.reps); r++) {
      const variant = options.pack ? 'pack' : 'loose';
      // The 1% edits continue the store of the first first commit.
      const store = path.join(args.root, `floor-${variant}-${kind === 'first' ? r : 0}`);
      const repository = kind === 'first' ? newRepository(path.join(args.root, `floor-git-${variant}-${r}`)) : null;
      if (repository) await shell.run(repository.init, args.workspace);
      else await args.edit();
      await shell.run('sync', args.workspace);
      const run = await floor(store, options);
      if (run.read === 0) throw new Error('commit floor: it read no file');
      m.ours.push(run.ms);
      await shell.run('sync', args.workspace);
      m.git.push((await shell.run(repository?.firstCommit ?? `${GIT} add -A && ${GIT} commit -q -m edit`, args.workspace)).ms);
    }
    return m;
  };
  const firstLoose = await measure('first', { pack: false });
  const firstPack = await measure('first', { pack: true });
  // The workspace's repository at the tree as it is now (the floors' stores are, from their first commits).
  await shell.run(`${GIT} add -A && ${GIT} commit -q -m floor --allow-empty`, args.workspace);
  const loose = await measure('1pct', { pack: false });
  const pack = await measure('1pct', { pack: true });
  const withoutCerts = process.env.NODE_EXTRA_CA_CERTS === undefined ? null : await measure('1pct', { pack: true, env: 'env -u NODE_EXTRA_CA_CERTS ' });
  const row = (name: string, what: string, m: { ours: number[]; git: number[] }, without?: { ours: number[]; git: number[] } | null): BenchResult => {
    const o = median(m.ours);
    const g = median(m.git);
    const w = without ? { ours: median(without.ours), git: median(without.git) } : null;
    args.log(`  ${name}: git's work in a Node process ${o.toFixed(0)} ms, git ${g.toFixed(0)} ms${w ? ` (without NODE_EXTRA_CA_CERTS: ${w.ours.toFixed(0)} ms, git ${w.git.toFixed(0)} ms)` : ''}`);
    return {
      name, ours: round(o), peer: round(g), ratio: round(o / g), unit: 'ms (ratio = the floor ÷ git add+commit)',
      note: `informational: ${what}, done by a Node process that does only git's work (bench/measure/commit-floor.mjs: no memory parsed, nothing ingested), Node's start-up included, each run followed by git's; median of ${m.ours.length} (runs: ${runs(m.ours)} ms; git: ${runs(m.git)} ms)${w
        ? `; without NODE_EXTRA_CA_CERTS (edits of their own): ${w.ours.toFixed(0)} ms, git ${w.git.toFixed(0)} ms, ${(w.ours / w.git).toFixed(2)}× (runs: ${runs(without!.ours)} ms)`
        : ''}`,
    };
  };
  return [
    row('commit_floor_first', 'the first commit of the 50k store, its objects loose files as git writes them', firstLoose),
    row('commit_floor_first_pack', 'the same, its objects in one pack file', firstPack),
    row('commit_floor_1pct', 'a commit of a 1% edit, its new objects loose files', loose),
    row('commit_floor_1pct_pack', 'the same, its new objects in one pack file (what a sync writing one archive must at least do)', pack, withoutCerts),
  ];
}

/**
 * `sync_idle_cli`: a `lineage sync` process with nothing changed (the stat cache finds every file
 * unchanged: none is opened, nothing is uploaded or written), against `git status --porcelain` of
 * the same clean tree, from the same shell. `sync_cli_first_read`: in one more idle process run
 * under strace, the time from its exec to its first open of a workspace file (its `.alf-agent-id`:
 * start-up, the bundle's imports), informational.
 */
async function measureIdle(shell: ReturnType<typeof startPeerShell>, command: string, workspace: string, args: Sync50kArgs): Promise<BenchResult[]> {
  const reps = 5;
  const ours: number[] = [];
  const git: number[] = [];
  await shell.run(`${GIT} add -A && ${GIT} commit -q -m idle --allow-empty`, workspace);
  for (let r = 0; r < reps; r++) {
    const run = await shell.run(command, workspace);
    if (!/"no_changes":true/.test(run.stdout)) throw new Error(`sync 50k idle: expected no changes, got ${run.stdout}`);
    ours.push(run.ms);
    const status = await shell.run('git status --porcelain', workspace);
    if (status.stdout.trim() !== '') throw new Error(`sync 50k idle: git status not clean: ${status.stdout.slice(0, 200)}`);
    git.push(status.ms);
  }
  const o = median(ours);
  const g = median(git);
  args.log(`  sync 50k: idle lineage sync process ${o.toFixed(0)} ms, git status --porcelain ${g.toFixed(0)} ms`);
  const results: BenchResult[] = [{
    name: 'sync_idle_cli', ours: round(o), peer: round(g), ratio: round(o / g), unit: 'ms (ratio = ours ÷ git status --porcelain)',
    note: `an idle \`lineage sync\` process on the 50k store (500 files): every file found unchanged by its stat data, none opened, nothing uploaded or written; median of ${reps} (runs: ${runs(ours)} ms; git: ${runs(git)} ms)`,
  }];
  results.push(await measureNodeStart(shell, workspace, args));
  const trace = path.join(path.dirname(workspace), 'idle.strace');
  const traced = await shell.run(`strace -f -ttt -qq -e trace=execve,openat -o ${JSON.stringify(trace)} env ${command} >/dev/null && echo traced || echo no-strace`, workspace).catch(() => null);
  if (traced?.stdout.includes('traced')) {
    const lines = (await fs.readFile(trace, 'utf8')).split('\n');
    const at = (line: string | undefined) => Number(/\s(\d+\.\d+) /.exec(` ${line ?? ''}`)?.[1]);
    const exec = lines.find((line) => /execve\("[^"]*\/node"/.test(line));
    const firstRead = lines.find((line) => line.includes('openat(') && line.includes(`"${workspace}/`));
    const ms = (at(firstRead) - at(exec)) * 1000;
    if (Number.isFinite(ms)) {
      args.log(`  sync 50k: idle process, exec to first workspace file opened (under strace): ${ms.toFixed(0)} ms`);
      results.push({ name: 'sync_cli_first_read', ours: round(ms), peer: null, ratio: null, unit: 'ms from exec to the first open of a workspace file (under strace)', note: 'informational: start-up of a `lineage sync` process (bundle imports, client state found) before it reads the workspace; strace slows every system call' });
    }
  }
  return results;
}

/**
 * `node_start`: `node -e 0` from the same shell, informational: the part of every `lineage` process
 * that is Node's own start-up, before any of our code runs. Node reads the CA file named by
 * `NODE_EXTRA_CA_CERTS` at every start, before V8 is up; where the environment sets it (these
 * machines do), the same command without it is measured too.
 */
async function measureNodeStart(shell: ReturnType<typeof startPeerShell>, cwd: string, args: Sync50kArgs): Promise<BenchResult> {
  const node = JSON.stringify(process.execPath);
  const times = async (command: string) => {
    const ms: number[] = [];
    for (let r = 0; r < 5; r++) ms.push((await shell.run(command, cwd)).ms);
    return ms;
  };
  const plain = await times(`${node} -e 0`);
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  const without = extra ? await times(`env -u NODE_EXTRA_CA_CERTS ${node} -e 0`) : null;
  const o = median(plain);
  args.log(`  node -e 0: ${o.toFixed(0)} ms${without ? ` (without NODE_EXTRA_CA_CERTS: ${median(without).toFixed(0)} ms)` : ''}`);
  return {
    name: 'node_start', ours: round(o), peer: null, ratio: null, unit: 'ms (`node -e 0` from the same shell)',
    note: `informational: Node's own start-up, part of every \`lineage\` process above (median of 5; runs: ${runs(plain)} ms)${without
      ? `; this environment sets NODE_EXTRA_CA_CERTS=${extra}, which Node reads at every start: without it ${median(without).toFixed(0)} ms (runs: ${runs(without)} ms)`
      : ''}`,
  };
}

/**
 * `sync_50k_first_cli`: the first sync of the same store as a user makes it, a fresh `lineage sync`
 * process into a new data directory and client state (`FIRST_CLI_REPS` of them, each a cold
 * process), against `git add -A && git commit` into a new repository of the same tree (its git
 * directory beside the workspace), from the same shell, alternating; medians. Runs last: its
 * syncs leave the workspace's markers naming their data directories.
 */
const FIRST_CLI_REPS = 3;

async function measureFirstCli(shell: ReturnType<typeof startPeerShell>, bin: string, workspace: string, args: Sync50kArgs): Promise<BenchResult[]> {
  const ours: number[] = [];
  const git: number[] = [];
  for (let r = 0; r < FIRST_CLI_REPS; r++) {
    const dir = path.join(args.root, `first-${r}`);
    const data = path.join(dir, 'data');
    await fs.mkdir(dir, { recursive: true });
    await shell.run('sync', workspace);
    const run = await shell.run(`ALF_HOME=${JSON.stringify(path.join(dir, 'home'))} ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} sync -r openclaw -w ${JSON.stringify(workspace)} --data ${JSON.stringify(data)} 2>/dev/null`, workspace);
    const returned = performance.now();
    const out = JSON.parse(run.stdout.trim().split('\n').pop()!) as { sequence?: number; delta?: boolean };
    if (out.sequence !== 0 || out.delta !== false) throw new Error(`sync 50k first CLI: expected a first sync, got ${run.stdout}`);
    ours.push(run.ms);
    await waitForIndexCaughtUp(openLedger(data));
    const repository = newRepository(path.join(dir, 'git'));
    await shell.run(`${repository.init} && sync`, workspace);
    git.push((await shell.run(repository.firstCommit, workspace)).ms);
    args.log(`  sync 50k: first sync as a lineage sync process ${ours.at(-1)!.toFixed(0)} ms, git add+commit into a new repository ${git.at(-1)!.toFixed(0)} ms (index folded ${(performance.now() - returned).toFixed(0)} ms after it exited)`);
  }
  const o = median(ours);
  const g = median(git);
  return [{
    name: 'sync_50k_first_cli', ours: round(o), peer: round(g), ratio: round(o / g), unit: 'ms (ratio = ours ÷ git add+commit)',
    note: `the first sync of the 50k store as a fresh \`lineage sync\` process (bin/lineage.cjs) into a new data directory and client state, start-up and exit included, against git's first commit into a new repository of the same tree, from the same shell; median of ${FIRST_CLI_REPS} each (runs: ${runs(ours)} ms; git: ${runs(git)} ms)`,
  }];
}

/**
 * The in-process first sync against git's first commits into new repositories (sync_50k_first_cli's
 * peer, a median of three): git's one first commit in the workspace's own repository swings 2–3×
 * run to run, and the row's ratio with it; this one is steadier. Empty without the CLI rows.
 */
function againstNewRepositories(ours: number, firstCli: readonly BenchResult[]): string {
  const peer = firstCli[0]?.peer;
  return typeof peer === 'number' && peer > 0
    ? `; against git's median first commit into new repositories (sync_50k_first_cli's peer, ${peer} ms): ${round(ours / peer)}×`
    : '';
}

/** measureSync50k in a fresh process (see the file comment); its log lines come through `log`. */
export async function measureSync50kInChild(args: Sync50kArgs): Promise<BenchResult[]> {
  const tsx = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin/tsx');
  const child = spawn(tsx, [fileURLToPath(import.meta.url), '--child', JSON.stringify({ root: args.root, files: args.files, sections: args.sections, reps: args.reps, cliReps: args.cliReps })], {
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
  const options = JSON.parse(process.argv[3]!) as Omit<Sync50kArgs, 'log'>;
  measureSync50k({ ...options, log: (line) => process.stderr.write(`${line}\n`) })
    .then((results) => process.stdout.write(`${JSON.stringify(results)}\n`))
    .catch((error: Error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exit(1);
    });
}
