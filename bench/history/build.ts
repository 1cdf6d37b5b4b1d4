/**
 * Builds the generated history twice in one pass: through OUR sync pipeline into a local data
 * directory, and as a git repository (one commit per sync).
 *
 * Builders:
 *  - `sync`: every turn is a real `syncWorkspace` (export → reconcile → delta → ingest → index,
 *    plus the client's base snapshot written and re-read on every sync).
 *  - `pipeline`: turn 0 is a real `syncWorkspace`; every later turn feeds the generator's state
 *    straight into the same real steps — the adapter's record builder on the changed files
 *    (`InMemoryExport`), `reconcile`, `buildDelta`, `writeDelta`, the local target's ingest +
 *    index — keeping the base snapshot in memory instead of zipping it to `$ALF_HOME` and
 *    unzipping it again, and skipping the directory walk. Files are still written to the workspace
 *    directory; at the end the base is persisted and one real `syncWorkspace` (real export) must
 *    report `no_changes`, which proves the pipeline reached exactly the state real syncs reach.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { getAdapter } from '@/lib/adapters';
import type { ExportResult } from '@/lib/adapters/types';
import { readSnapshot, writeDelta, writeSnapshot } from '@/lib/core/archive';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import { reconcile } from '@/lib/core/reconcile';
import { snapshotFromExport } from '@/lib/sync/snapshot';
import { readBaseSnapshot, writeClientState } from '@/lib/sync/state';
import { buildDelta, syncWorkspace } from '@/lib/sync/sync';
import { localTarget } from '@/lib/sync/local-target';
import { WorkspaceHistory, type PlantedFact, type TurnChange } from './generate';
import { gitHistoryWriter } from './git-history';
import { InMemoryExport } from './memory-export';
import { applyTurn, BENCH_AGENT_ID } from './replay';

export type Builder = 'sync' | 'pipeline';

export interface BuiltHistory {
  agentId: string;
  dataDir: string;
  workspace: string;
  alfHome: string;
  gitRepo: string;
  turns: number;
  commits: string[];
  facts: PlantedFact[];
  /** Workspace size after each turn. */
  sizes: { files: number; bytes: number }[];
  /** Wall time of each turn's sync (ms), and of the whole build. */
  syncMs: number[];
  buildMs: number;
  /** Generates one more turn and syncs it with a real, timed `syncWorkspace` (after the build). */
  realTurn(): Promise<{ change: TurnChange; ms: number; sequence: number }>;
}

export async function buildHistory(opts: { root: string; turns: number; builder: Builder; seed?: number; log: (line: string) => void }): Promise<BuiltHistory> {
  const dirs = { workspace: path.join(opts.root, 'ws'), alfHome: path.join(opts.root, 'alf-home'), dataDir: path.join(opts.root, 'data') };
  const gitRepo = path.join(opts.root, 'git');
  await fs.mkdir(dirs.workspace, { recursive: true });
  await fs.writeFile(path.join(dirs.workspace, '.alf-agent-id'), BENCH_AGENT_ID);
  let clockNow = new Date(0);
  const clock = () => clockNow;
  // Packed in this process as the groups complete: no background packer runs on while rows are measured.
  const target = localTarget(dirs.dataDir, clock, { packing: 'inline', indexing: 'inline' });
  const gen = new WorkspaceHistory(opts.turns, opts.seed ?? 42);
  const gitWriter = gitHistoryWriter(gitRepo);
  const realSync = () => syncWorkspace({ runtime: 'openclaw', workspace: dirs.workspace, target, alfHome: dirs.alfHome, clock });
  const sizes: BuiltHistory['sizes'] = [];
  const syncMs: number[] = [];
  let base: AlfSnapshot | null = null;
  let memoryExport: InMemoryExport | null = null;
  const started = performance.now();
  for (let turn = 0; turn < opts.turns; turn++) {
    const change = gen.next();
    clockNow = change.time;
    const gitDone = gitWriter.commit(change);
    await applyTurn(dirs.workspace, change);
    const t0 = performance.now();
    let sequence: number;
    if (turn === 0 || opts.builder === 'sync') {
      sequence = (await realSync()).sequence;
      if (opts.builder === 'pipeline') {
        base = await readSnapshot((await readBaseSnapshot(dirs.alfHome, BENCH_AGENT_ID))!);
        memoryExport = new InMemoryExport(await getAdapter('openclaw').exportWorkspace({ workspace: dirs.workspace, persistAgentId: true, clock }));
        memoryExport.apply(change);
      }
    } else {
      memoryExport!.apply(change);
      ({ sequence, base } = await pipelineSync({ exported: memoryExport!.result(), target, base: base!, baseSequence: turn - 1, prevTime: gen.timeOf(turn - 1), now: change.time }));
    }
    syncMs.push(performance.now() - t0);
    await gitDone;
    if (sequence !== turn) throw new Error(`turn ${turn} became sequence ${sequence}: every turn must change something`);
    let bytes = 0;
    for (const text of gen.files.values()) bytes += text.length;
    sizes.push({ files: gen.files.size, bytes });
    if (turn % 500 === 0 || turn === opts.turns - 1) opts.log(`  turn ${turn}/${opts.turns}: ${gen.files.size} files, ${(bytes / 1e6).toFixed(2)} MB, last sync ${syncMs.at(-1)!.toFixed(0)} ms`);
  }
  if (opts.builder === 'pipeline') await proveSameState({ base: base!, dirs, sequence: opts.turns - 1, time: gen.timeOf(opts.turns - 1), realSync, setClock: (d) => (clockNow = d) });
  const commits = await gitWriter.finish();
  if (commits.length !== opts.turns) throw new Error(`git has ${commits.length} commits, expected ${opts.turns}`);
  const buildMs = performance.now() - started;
  const realTurn = async () => {
    const change = gen.next();
    clockNow = change.time;
    await applyTurn(dirs.workspace, change);
    const t0 = performance.now();
    const { sequence } = await realSync();
    return { change, ms: performance.now() - t0, sequence };
  };
  return { agentId: BENCH_AGENT_ID, ...dirs, gitRepo, turns: opts.turns, commits, facts: gen.facts, sizes, syncMs, buildMs, realTurn };
}

/** `syncWorkspace`'s delta path with the base kept in memory. */
async function pipelineSync(args: {
  exported: ExportResult; target: ReturnType<typeof localTarget>; base: AlfSnapshot; baseSequence: number; prevTime: Date; now: Date;
}): Promise<{ sequence: number; base: AlfSnapshot }> {
  const { exported } = args;
  const reconciled = reconcile({ agentId: exported.agentId, prev: args.base.records, curr: exported.records });
  const current = snapshotFromExport(exported, args.now, reconciled.records);
  const delta = buildDelta({
    base: args.base, current, baseSequence: args.baseSequence, runtime: 'openclaw', agentId: exported.agentId, now: args.now, baseTimestamp: args.prevTime.toISOString(),
  });
  if (!delta) throw new Error(`no changes at sequence ${args.baseSequence + 1}`);
  const { sequence } = await args.target.pushDelta(exported.agentId, args.baseSequence, await writeDelta(delta));
  return { sequence, base: current };
}

/** Persists the in-memory base as the client state and checks a real sync finds nothing to upload. */
async function proveSameState(args: {
  base: AlfSnapshot; dirs: { alfHome: string }; sequence: number; time: Date; realSync: typeof syncWorkspace extends (...a: never[]) => infer R ? () => R : never; setClock: (d: Date) => void;
}): Promise<void> {
  await writeClientState({
    alfHome: args.dirs.alfHome,
    state: { agent_id: BENCH_AGENT_ID, last_synced_sequence: args.sequence, last_synced_at: args.time.toISOString() },
    baseSnapshot: await writeSnapshot(args.base),
  });
  args.setClock(new Date(args.time.getTime() + 60_000));
  const out = await args.realSync();
  if (!out.no_changes || out.sequence !== args.sequence) {
    throw new Error(`pipeline builder diverged from syncWorkspace: a real sync after the build gave ${JSON.stringify(out.changes ?? out)}`);
  }
}
