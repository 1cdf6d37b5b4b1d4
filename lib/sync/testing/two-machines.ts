/**
 * Two machines syncing one agent, the setups tests/server/two-machines.test.ts, lib/sync/lagging-clock.test.ts
 * and lib/sync/restore-superseded.test.ts share. Machine A's workspace is the sandbox's, machine B's
 * `ws-b`; each has its own ALF home (`home-a`, `home-b`) and clock. A syncs MEMORY.md (a snapshot at 0), then:
 * - `replacedByB`: B is a copy of A's workspace (its `.alf-agent-id` too) with no sync state; A adds an
 *   Alpha section (a delta at 1); B writes a Bravo section and uploads `--force-first-sync` (its snapshot
 *   at 1, the head: a snapshot does not advance the sequence, CONTRACT §1.3; lib/ledger/ingest-base.ts);
 * - `deltaByB`: B restores the head into an empty workspace and syncs a Bravo section (a delta at 1, the head).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { restoreAgent } from '../restore';
import { syncWorkspace } from '../sync';
import type { SyncTarget } from '../target';
import { readTree, type makeSandbox } from './workspace';

export const BASE_MEMORY = '# M\n\n## Base\nshared start\n';
export const A_MEMORY = `${BASE_MEMORY}\n## Alpha\nalpha fact from A\n`;
export const B_MEMORY = `${BASE_MEMORY}\n## Bravo\nbravo fact from B\n`;

type Machines = { sb: Awaited<ReturnType<typeof makeSandbox>>; target: SyncTarget; clockA: () => Date; clockB: () => Date };

/** Each machine's workspace and ALF home, and its sync (B's may be `--force-first-sync`). */
function machines({ sb, target, clockA, clockB }: Machines) {
  const wsA = sb.workspace;
  const homeA = path.join(sb.root, 'home-a');
  const wsB = path.join(sb.root, 'ws-b');
  const homeB = path.join(sb.root, 'home-b');
  const syncA = () => syncWorkspace({ runtime: 'openclaw', workspace: wsA, target, alfHome: homeA, clock: clockA });
  const syncB = (forceFirstSync = false) => syncWorkspace({ runtime: 'openclaw', workspace: wsB, target, alfHome: homeB, clock: clockB, forceFirstSync });
  return { wsA, homeA, wsB, homeB, syncA, syncB };
}

export async function replacedByB(args: Machines) {
  const { sb } = args;
  const { wsA, homeA, wsB, homeB, syncA, syncB } = machines(args);

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

export async function deltaByB(args: Machines) {
  const { sb, target, clockB } = args;
  const { wsA, homeA, wsB, homeB, syncA, syncB } = machines(args);

  await sb.write('MEMORY.md', BASE_MEMORY);
  const agentId = (await syncA()).agent.alf_agent_id;
  expect(await restoreAgent({ runtime: 'openclaw', target, agentId, workspace: wsB, replace: false, alfHome: homeB, clock: clockB })).toMatchObject({ sequence: 0, applied: true });
  await fs.appendFile(path.join(wsB, 'MEMORY.md'), '\n## Bravo\nbravo fact from B\n');
  expect(await syncB()).toMatchObject({ sequence: 1, delta: true });
  return { agentId, wsA, homeA, wsB, homeB, syncA, syncB };
}

/**
 * A machine's client state as a refused sync must leave it: every file, and the bytes of each but
 * the store's log (a sync writes the next state's lines there before it uploads; they stay dead
 * bytes until the index names them: lib/sync/store, lib/sync/testing/refusals.ts).
 */
export async function clientState(alfHome: string): Promise<Map<string, string>> {
  const tree = await readTree(alfHome, []);
  return new Map([...tree].map(([file, bytes]) => [file, file.endsWith('.log') ? '' : bytes.toString('base64')]));
}

/** MEMORY.md's `## ` sections as the records hold them (OpenClaw: one record per section). */
export const sections = (text: string) => text.split(/\n(?=## )/).slice(1).map((s) => s.trimEnd());
