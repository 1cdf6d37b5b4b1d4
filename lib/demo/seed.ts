/**
 * `seedDemo`: fills an empty data directory with the demo fleet by running the real sync pipeline
 * over scripted agent lives. Workspaces stay under `<data>/demo/workspaces/` for people to look at;
 * the sync client's private state lives in `<data>/demo/alf-home`. `seedDemoInto`: the same fleet
 * into any storage (the scale-out one).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { listAgents, openLedger } from '@/lib/ledger';
import type { LineageStorage } from '@/lib/storage/types';
import { localTarget } from '@/lib/sync/local-target';
import { storageTarget } from '@/lib/sync/storage-target';
import type { SyncTarget } from '@/lib/sync/target';
import { liveAtlas } from './atlas';
import { liveHermes } from './hermes';
import { liveZeroclaw } from './zeroclaw';
import { demoCalendar, demoClock, seededPrng, type DemoClock } from './clock';
import { createSyncDriver, type DemoAgentSummary } from './driver';
import type { LifeContext } from './life';

export type SeedDemoResult =
  | { ok: true; seeded: false; reason: string }
  | { ok: true; seeded: true; agents: DemoAgentSummary[]; syncs: number };

/** Each life draws from its own stream, so editing one scenario never reshuffles another. */
const SEEDS = { atlas: 0xa71a5, zeroclaw: 0x2e60c1a, hermes: 0x4e12e5 } as const;

/**
 * Seeds the demo fleet into `dataDir`: four weeks of syncs ending on `today` (UTC date), the same
 * ledger bytes for the same `today` and data directory path. A data directory that already has
 * agents is left untouched (`seeded: false`); `log` receives one line per sync.
 */
export async function seedDemo(args: { dataDir: string; today: Date; log?: (line: string) => void }): Promise<SeedDemoResult> {
  const ledger = openLedger(args.dataDir);
  if (listAgents({ ledger }).length > 0) return { ok: true, seeded: false, reason: 'data directory already has agents' };
  return liveFleet({ ...args, demoDir: path.join(ledger.db.dataDir, 'demo'), target: (clock) => localTarget(ledger.db.dataDir, clock.now, { indexing: 'inline' }) });
}

/**
 * Seeds the demo fleet into any storage (the scale-out one: `lineage demo --database-url …`),
 * through the same sync pipeline and the same ingest as a server's. The scripted workspaces and the
 * sync client's state live in `workDir` (the caller's to remove: the storage keeps nothing of them).
 * A storage that already has agents is left untouched.
 */
export async function seedDemoInto(args: { storage: LineageStorage; workDir: string; today: Date; log?: (line: string) => void }): Promise<SeedDemoResult> {
  if ((await args.storage.listAgents({})).length > 0) return { ok: true, seeded: false, reason: 'the storage already has agents' };
  const { storage } = args;
  return liveFleet({
    ...args, demoDir: args.workDir,
    target: (clock) => storageTarget({ open: async () => storage, label: 'the storage', flags: '', now: clock.now }),
  });
}

async function liveFleet(args: {
  demoDir: string; today: Date; log?: (line: string) => void; target: (clock: DemoClock) => SyncTarget;
}): Promise<SeedDemoResult> {
  const log = args.log ?? (() => {});
  const { demoDir } = args;
  // A half-finished earlier seeding (no agents reached the ledger) leaves client state behind.
  await rm(demoDir, { recursive: true, force: true });
  const calendar = demoCalendar(args.today);
  const clock = demoClock(calendar.day(0));
  const driver = createSyncDriver({ target: args.target(clock), alfHome: path.join(demoDir, 'alf-home'), clock, log });
  const life = (seed: number): LifeContext => ({
    workspacesDir: path.join(demoDir, 'workspaces'), calendar, clock, prng: seededPrng(seed), driver,
  });
  await liveAtlas(life(SEEDS.atlas));
  await liveZeroclaw(life(SEEDS.zeroclaw));
  await liveHermes(life(SEEDS.hermes));
  const agents = driver.agents().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ok: true, seeded: true, agents, syncs: driver.totalSyncs() };
}
