/**
 * The bench history (bench/history: one OpenClaw agent, N turns, planted facts) as an embedded data
 * directory, for the search and rebuild figures. Either a history kept by `npm run bench -- --keep`
 * (`--history DIR`: its `data/`; the facts are the generator's, regenerated without syncing), or one
 * built here once and cached under the temp dir by turns and migration journal, like ui-scale's fleet.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '@/lib/package-root';
import { buildHistory } from '../history/build';
import { WorkspaceHistory, type PlantedFact } from '../history/generate';
import { BENCH_AGENT_ID } from '../history/replay';

export interface BenchHistory {
  dataDir: string;
  agentId: string;
  turns: number;
  facts: PlantedFact[];
  /** Where it came from, for the report. */
  origin: string;
}

/** The planted facts of the `turns`-turn history (seed 42), by running the generator alone. */
export function plantedFacts(turns: number): PlantedFact[] {
  const gen = new WorkspaceHistory(turns, 42);
  for (let turn = 0; turn < turns; turn++) gen.next();
  return gen.facts;
}

function cacheDir(turns: number): string {
  const journal = fs.readFileSync(path.join(packageRoot(), 'db', 'migrations', 'meta', '_journal.json'));
  const schema = createHash('sha256').update(journal).digest('hex').slice(0, 10);
  return path.join(process.env.LINEAGE_BENCH_CACHE ?? path.join(os.tmpdir(), 'alf-lineage-bench-cache'), `history-${turns}-${schema}`);
}

export async function benchHistory(params: { turns: number; from?: string; log: (line: string) => void }): Promise<BenchHistory> {
  const { turns, log } = params;
  if (params.from) {
    const dataDir = path.join(params.from, 'data');
    if (!fs.existsSync(path.join(dataDir, 'lineage.db'))) throw new Error(`--history ${params.from} holds no data/lineage.db`);
    return { dataDir, agentId: BENCH_AGENT_ID, turns, facts: plantedFacts(turns), origin: `kept bench history ${params.from}` };
  }
  const dir = cacheDir(turns);
  const manifest = path.join(dir, 'facts.json');
  if (!fs.existsSync(manifest)) {
    const staging = `${dir}.tmp-${process.pid}`;
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { recursive: true });
    log(`history: building ${turns} turns in ${staging}`);
    const built = await buildHistory({ root: staging, turns, builder: 'pipeline', log });
    for (const scratch of ['ws', 'alf-home', 'git']) fs.rmSync(path.join(staging, scratch), { recursive: true, force: true });
    fs.writeFileSync(path.join(staging, 'facts.json'), JSON.stringify({ facts: built.facts, buildMs: built.buildMs }));
    fs.renameSync(staging, dir);
  }
  const { facts } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { facts: PlantedFact[] };
  return { dataDir: path.join(dir, 'data'), agentId: BENCH_AGENT_ID, turns, facts, origin: `cached history ${dir}` };
}
