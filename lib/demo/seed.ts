/**
 * `seedDemo`: fills an empty data directory with the demo fleet by running the real sync pipeline
 * over scripted agent lives. Workspaces stay under `<data>/demo/workspaces/` for people to look at;
 * the sync client's private state lives in `<data>/demo/alf-home`.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { listAgents, openLedger } from '@/lib/ledger';
import { liveAtlas } from './atlas';
import { liveHermes } from './hermes';
import { liveZeroclaw } from './zeroclaw';
import { demoCalendar, demoClock, seededPrng } from './clock';
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
  const log = args.log ?? (() => {});
  const ledger = openLedger(args.dataDir);
  if (listAgents({ ledger }).length > 0) return { ok: true, seeded: false, reason: 'data directory already has agents' };
  const demoDir = path.join(ledger.db.dataDir, 'demo');
  // A half-finished earlier seeding (no agents reached the ledger) leaves client state behind.
  await rm(demoDir, { recursive: true, force: true });
  const calendar = demoCalendar(args.today);
  const clock = demoClock(calendar.day(0));
  const driver = createSyncDriver({ dataDir: ledger.db.dataDir, alfHome: path.join(demoDir, 'alf-home'), clock, log });
  const life = (seed: number): LifeContext => ({
    workspacesDir: path.join(demoDir, 'workspaces'), calendar, clock, prng: seededPrng(seed), driver,
  });
  await liveAtlas(life(SEEDS.atlas));
  await liveZeroclaw(life(SEEDS.zeroclaw));
  await liveHermes(life(SEEDS.hermes));
  const agents = driver.agents().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ok: true, seeded: true, agents, syncs: driver.totalSyncs() };
}
