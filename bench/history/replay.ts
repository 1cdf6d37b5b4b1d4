/**
 * Feeds the generated history through the REAL sync pipeline: each turn's files are written to a
 * workspace directory (mtimes set to the turn's clock) and `syncWorkspace` pushes it into a local
 * data directory with an injected clock. Returns per-sync timings.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { syncWorkspace } from '@/lib/sync/sync';
import { localTarget } from '@/lib/sync/local-target';
import type { TurnChange } from './generate';

export const BENCH_AGENT_ID = '6f1c2a4e-8b3d-4e5f-9a7b-0c1d2e3f4a5b';

/** Applies one turn's writes and deletes to `workspace`, stamping mtimes with the turn time. */
export async function applyTurn(workspace: string, change: TurnChange): Promise<void> {
  for (const [rel, text] of change.writes) {
    const file = path.join(workspace, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
    await fs.utimes(file, change.time, change.time);
  }
  for (const rel of change.deletes) await fs.rm(path.join(workspace, rel), { force: true });
}

export interface SyncRunner {
  /** Syncs the workspace as it is now at time `now`; returns the sequence and the wall time in ms. */
  sync(now: Date): Promise<{ sequence: number; ms: number; noChanges: boolean }>;
}

/** A runner over one workspace, ALF home and data directory (the agent id is fixed for determinism). */
export async function syncRunner(dirs: { workspace: string; alfHome: string; dataDir: string }): Promise<SyncRunner> {
  await fs.mkdir(dirs.workspace, { recursive: true });
  await fs.writeFile(path.join(dirs.workspace, '.alf-agent-id'), BENCH_AGENT_ID);
  let clockNow = new Date(0);
  const clock = () => clockNow;
  const target = localTarget(dirs.dataDir, clock);
  return {
    async sync(now) {
      clockNow = now;
      const t0 = performance.now();
      const out = await syncWorkspace({ runtime: 'openclaw', workspace: dirs.workspace, target, alfHome: dirs.alfHome, clock });
      return { sequence: out.sequence, ms: performance.now() - t0, noChanges: out.no_changes };
    },
  };
}
