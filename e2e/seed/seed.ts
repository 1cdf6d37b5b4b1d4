/**
 * Seeds a data directory for the browser tests with the real sync pipeline (adapter → reconcile →
 * delta → ingest → index) and an injected clock, so syncs spread over the past days and the last
 * ones fall in the current week. Usage: `tsx e2e/seed/seed.ts <dataDir> <scratchDir>`.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { syncWorkspace } from '@/lib/sync/sync';
import { localTarget } from '@/lib/sync/local-target';
import { FACTS, lifeSteps, type Files } from './openclaw-life';
import { seedPaging, type PagingSeed } from './paging';

const HOUR = 3600_000;

async function writeWorkspace(dir: string, files: Files): Promise<void> {
  await rm(path.join(dir, 'memory'), { recursive: true, force: true });
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(dir, ...rel.split('/'));
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
  }
}

/** Sync times: three days spread over the previous week, then the rest within this week's last hours. */
function syncTimes(count: number, now: Date): Date[] {
  const weekStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  weekStart.setUTCDate(weekStart.getUTCDate() - ((weekStart.getUTCDay() + 6) % 7));
  const recentFrom = Math.max(weekStart.getTime() + 60_000, now.getTime() - 6 * HOUR);
  const recent = Math.max(1, count - 3);
  const early = count - recent;
  const times: Date[] = [];
  for (let i = 0; i < early; i += 1) times.push(new Date(weekStart.getTime() - (early - i) * 2 * 24 * HOUR));
  const span = now.getTime() - 60_000 - recentFrom;
  for (let i = 0; i < recent; i += 1) times.push(new Date(recentFrom + Math.floor((span * i) / Math.max(1, recent - 1))));
  return times;
}

/** What the browser tests compare against: the agent's id and the exact workspace files of every sequence. */
export interface SeedManifest {
  agentId: string;
  agentName: string;
  steps: Files[];
  /** A second agent, synced once ten days ago, whose one memory file holds more records than any page of the API. */
  large: { agentId: string; agentName: string; file: string; records: number; syncedAt: string };
  /** Fleet scale for the paging tests (e2e/seed/paging.ts): thousands of ops in one sequence, a long lineage. Only in the browser tests' seed. */
  paging?: PagingSeed;
}

/** More records in one file than the dashboard's Changes panel shows (1000) or the records API pages (≤1000). */
export const LARGE = { agentName: 'Lyra', file: 'memory/semantic/glossary.md', records: 1005 } as const;

function largeWorkspace(): Files {
  const term = (i: number) => String(i + 1).padStart(4, '0');
  const sections = Array.from({ length: LARGE.records }, (_, i) => `## Term ${term(i)}\n\nTerm ${term(i)} is glossary entry number ${i + 1}.\n`);
  return { 'IDENTITY.md': `# Identity\n\nName: ${LARGE.agentName}\n`, [LARGE.file]: sections.join('\n') };
}

async function seedLarge(target: ReturnType<typeof localTarget>, scratch: string, alfHome: string, at: Date): Promise<SeedManifest['large']> {
  const workspace = path.join(scratch, 'lyra');
  await mkdir(workspace, { recursive: true });
  await writeWorkspace(workspace, largeWorkspace());
  const out = await syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome, clock: () => at });
  return { agentId: out.agent.alf_agent_id, agentName: LARGE.agentName, file: LARGE.file, records: LARGE.records, syncedAt: at.toISOString() };
}

/** `withPaging`: also the paging agents (the browser tests'; a minute of syncs the unit tests need not wait for). */
export async function seed(dataDir: string, scratch: string, options: { withPaging?: boolean } = {}): Promise<SeedManifest> {
  const now = new Date();
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  const today = iso(now);
  const yesterday = iso(new Date(now.getTime() - 24 * HOUR));
  const archiveDir = `memory/archive/${yesterday.slice(0, 4)}/${yesterday.slice(5, 7)}`;
  const steps = lifeSteps(today, yesterday, archiveDir);
  const times = syncTimes(steps.length, now);
  const workspace = path.join(scratch, 'vega');
  const alfHome = path.join(scratch, 'alf-home');
  await mkdir(workspace, { recursive: true });
  let clock = times[0]!;
  // Packed as each group completes, before the seed returns: no packer runs on beside the browser tests.
  const target = localTarget(dataDir, () => clock, { packing: 'inline', indexing: 'inline' });
  let agentId = '';
  for (const [i, files] of steps.entries()) {
    clock = times[i]!;
    await writeWorkspace(workspace, files);
    const out = await syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome, clock: () => clock });
    if (out.sequence !== i) throw new Error(`step ${i} synced as sequence ${out.sequence} (no_changes=${out.no_changes})`);
    agentId = out.agent.alf_agent_id;
  }
  clock = new Date(now.getTime() - 10 * 24 * HOUR);
  const large = await seedLarge(target, scratch, alfHome, clock);
  const paging = options.withPaging ? await seedPaging(scratch, alfHome, now, (at) => {
    clock = at;
  }, target) : undefined;
  const manifest: SeedManifest = { agentId, agentName: FACTS.agentName, steps, large, ...(paging ? { paging } : {}) };
  await writeFile(path.join(scratch, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('e2e', 'seed', 'seed.ts'))) {
  const [dataDir, scratch] = process.argv.slice(2);
  if (!dataDir || !scratch) throw new Error('usage: tsx e2e/seed/seed.ts <dataDir> <scratchDir>');
  seed(path.resolve(dataDir), path.resolve(scratch), { withPaging: true }).then(
    () => process.stdout.write(`seeded ${dataDir}\n`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
