/**
 * The name a sync registers is readable even when the runtime's is not: a workspace whose
 * IDENTITY.md names the agent with a tab, or at length, still syncs (the storage refuses such a
 * name, lib/ledger/agent-name.ts), registered under the name made readable, while the archive's
 * manifest keeps the name as the runtime gave it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readSnapshot } from '@/lib/core/archive';
import { getAgent, listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

describe('an agent name the storage refuses, from the workspace', () => {
  it.each([
    ['a tab', 'Atlas\tops', 'Atlas ops'],
    ['300 characters', 'A'.repeat(300), 'A'.repeat(256)],
  ])('IDENTITY.md names it with %s: synced, registered readable, the manifest as written', async (_what, name, registered) => {
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    await sb.write('IDENTITY.md', `# Identity\n\n- **Name:** ${name}\n`);
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
    const out = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: localTarget(sb.dataDir, clock), alfHome: sb.alfHome, clock });
    expect(out.sequence).toBe(0);
    const ledger = openLedger(sb.dataDir);
    expect(getAgent({ ledger, agentId: out.agent.alf_agent_id })?.name).toBe(registered);
    const [entry] = listEntries({ ledger, agentId: out.agent.alf_agent_id });
    const snapshot = await readSnapshot(await readEntryBytes({ ledger, entry: entry! }));
    expect((snapshot.manifest.agent as { name: string }).name).toBe(name);
  });
});
