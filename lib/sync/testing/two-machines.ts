/**
 * Two machines syncing one agent until machine B's `--force-first-sync` replaces the head at machine
 * A's latest sequence (a snapshot does not advance it, CONTRACT §1.3; lib/ledger/ingest-base.ts): the
 * setup tests/server/two-machines.test.ts and lib/sync/lagging-clock.test.ts share. A syncs MEMORY.md
 * (a snapshot at 0); B is a copy of A's workspace (its `.alf-agent-id` too) with no sync state; A adds
 * an Alpha section (a delta at 1); B writes a Bravo section and uploads `--force-first-sync` (its
 * snapshot at 1, the head). Each machine has its own ALF home and clock.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { syncWorkspace } from '../sync';
import type { SyncTarget } from '../target';
import type { makeSandbox } from './workspace';

export const BASE_MEMORY = '# M\n\n## Base\nshared start\n';
export const A_MEMORY = `${BASE_MEMORY}\n## Alpha\nalpha fact from A\n`;
export const B_MEMORY = `${BASE_MEMORY}\n## Bravo\nbravo fact from B\n`;

export async function replacedByB(args: {
  sb: Awaited<ReturnType<typeof makeSandbox>>; target: SyncTarget; clockA: () => Date; clockB: () => Date;
}) {
  const { sb, target, clockA, clockB } = args;
  const wsA = sb.workspace;
  const homeA = path.join(sb.root, 'home-a');
  const wsB = path.join(sb.root, 'ws-b');
  const homeB = path.join(sb.root, 'home-b');
  const syncA = () => syncWorkspace({ runtime: 'openclaw', workspace: wsA, target, alfHome: homeA, clock: clockA });
  const syncB = (forceFirstSync = false) => syncWorkspace({ runtime: 'openclaw', workspace: wsB, target, alfHome: homeB, clock: clockB, forceFirstSync });

  await sb.write('MEMORY.md', BASE_MEMORY);
  const agentId = (await syncA()).agent.alf_agent_id;
  await fs.cp(wsA, wsB, { recursive: true });
  await fs.rm(path.join(wsB, '.alf-synced.json'), { force: true });
  await sb.write('MEMORY.md', A_MEMORY);
  expect(await syncA()).toMatchObject({ sequence: 1, delta: true });
  await fs.writeFile(path.join(wsB, 'MEMORY.md'), B_MEMORY);
  expect(await syncB(true)).toMatchObject({ sequence: 1, delta: false });
  return { agentId, wsA, homeA, wsB, homeB, syncA, syncB };
}
