/**
 * The ui-scale fleet (issue 20 §5): `agents` OpenClaw agents × `syncs` syncs of the bench's
 * evolving workspace (bench/history/generate.ts, one seed per agent), plus one agent with
 * `bigMemories` records and `bigSyncs` syncs (big-store.ts), all into one data directory through the
 * real ingest + indexer (agent-pipeline.ts), in time order across agents, with a fixed clock: the
 * same shape gives the same ledger. Every agent ends with a real sync that must find no changes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { uuidV5 } from '@/lib/core/uuid';
import { localTarget } from '@/lib/sync/local-target';
import { TURN_MS, WorkspaceHistory } from '../history/generate';
import type { TurnChange } from '../history/generate';
import { AgentPipeline, type PipelineClock } from './agent-pipeline';
import { BigStore, HOT_FILE, HOT_HEADING } from './big-store';

/** Bump when what the generator writes changes: the cache key holds it. */
export const GENERATOR_VERSION = 1;

export interface UiScaleShape { agents: number; syncs: number; bigMemories: number; bigSyncs: number }
export const FULL_SHAPE: UiScaleShape = { agents: 100, syncs: 200, bigMemories: 50_000, bigSyncs: 2_000 };

/** Every agent's last sync is at (or a few minutes before) this instant. */
export const END = Date.parse('2026-12-02T00:00:00Z');
const BIG_TURN_MS = 30 * 60_000;
const NAMESPACE = '3c1f5d0a-7e2b-4b8c-9d6e-5a4f3b2c1d0e';
const NAMES = ['Vega', 'Orion', 'Lyra', 'Altair', 'Deneb', 'Rigel', 'Sirius', 'Mira', 'Castor', 'Pollux', 'Antares', 'Spica'];

export interface UiScaleAgent { id: string; name: string; syncs: number; records: number }
export interface UiScaleManifest {
  version: number;
  shape: UiScaleShape;
  fleet: UiScaleAgent[];
  big: UiScaleAgent & { hotFile: string; hotHeading: string };
  generatedAt: string;
  generateMs: number;
  /** The cache entry this one was copied from and migrated (cache.ts), when it was not generated. */
  upgradedFrom?: string;
}

export const fleetAgentId = (i: number) => uuidV5(NAMESPACE, `ui-scale-fleet-${i}`);
export const bigAgentId = () => uuidV5(NAMESPACE, 'ui-scale-big');

interface Source { pipeline: AgentPipeline; turns: number; done: number; timeOf: (turn: number) => number; next: () => TurnChange }

export async function generateUiScale(opts: { root: string; shape: UiScaleShape; log: (line: string) => void }): Promise<UiScaleManifest> {
  const started = performance.now();
  const { shape } = opts;
  let now = new Date(0);
  const time: PipelineClock = { set: (t) => (now = t), clock: () => now };
  // Packed in this process as groups complete: the cached fleet is left with no packer running.
  const target = localTarget(path.join(opts.root, 'data'), time.clock, { packing: 'inline', indexing: 'inline' });
  const alfRoot = path.join(opts.root, 'alf');
  const ws = (id: string) => path.join(opts.root, 'ws', id);
  const sources: Source[] = [];
  const fleet: UiScaleAgent[] = [];
  for (let a = 0; a < shape.agents; a++) {
    const id = fleetAgentId(a);
    const name = `${NAMES[a % NAMES.length]}-${String(a).padStart(3, '0')}`;
    fleet.push({ id, name, syncs: shape.syncs, records: 0 });
    const gen = new WorkspaceHistory(shape.syncs, 1000 + a);
    // Agents stagger by 97 s, so their syncs interleave in the ledger as a real fleet's do.
    const timeOf = (t: number) => END - a * 97_000 - (shape.syncs - 1 - t) * TURN_MS;
    const next = () => {
      const change = gen.next();
      if (change.turn === 0) change.writes.set('IDENTITY.md', `# Identity\n\nName: ${name}\nRole: operations agent\n`);
      return { ...change, time: new Date(timeOf(change.turn)) };
    };
    sources.push({ pipeline: new AgentPipeline(id, ws(id), alfRoot, target, time), turns: shape.syncs, done: 0, timeOf, next });
  }
  const bigId = bigAgentId();
  const bigTimeOf = (t: number) => END - 60_000 - (shape.bigSyncs - 1 - t) * BIG_TURN_MS;
  const store = new BigStore(shape.bigMemories, (t) => new Date(bigTimeOf(t)));
  const big: Source = { pipeline: new AgentPipeline(bigId, ws(bigId), alfRoot, target, time), turns: shape.bigSyncs, done: 0, timeOf: bigTimeOf, next: () => store.next() };
  sources.push(big);

  const total = sources.reduce((n, s) => n + s.turns, 0);
  for (let step = 0; step < total; step++) {
    // The source whose next sync is earliest (a linear scan: about a hundred sources).
    let pick: Source | null = null;
    for (const s of sources) if (s.done < s.turns && (!pick || s.timeOf(s.done) < pick.timeOf(pick.done))) pick = s;
    await pick!.pipeline.turn(pick!.next());
    pick!.done++;
    if ((step + 1) % 2000 === 0 || step + 1 === total) opts.log(`  ui-scale: ${step + 1}/${total} syncs, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  for (const s of sources) await s.pipeline.prove();
  fleet.forEach((agent, i) => (agent.records = sources[i]!.pipeline.recordCount));
  const manifest: UiScaleManifest = {
    version: GENERATOR_VERSION,
    shape,
    fleet,
    big: { id: bigId, name: 'Archive', syncs: shape.bigSyncs, records: big.pipeline.recordCount, hotFile: HOT_FILE, hotHeading: HOT_HEADING },
    generatedAt: new Date().toISOString(),
    generateMs: Math.round(performance.now() - started),
  };
  await fs.writeFile(path.join(opts.root, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
