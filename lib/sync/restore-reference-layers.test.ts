import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatNanos } from '@/lib/adapters/openclaw/workspace-files';
import { readSnapshot, writeSnapshot } from '@/lib/core/archive';
import { syntheticAgentBytes } from '@/lib/core/archive/testing/fixtures';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** The reference's synthetic agent (identity, 3 principals, 4 credentials; raw/openclaw/.keep). */
const AGENT = 'c538c13b-48f3-4cd1-befd-0feb12c8fef9';

/** A data directory holding `bytes` as the agent's snapshot 0, and a restore of it into an empty workspace. */
async function restoredReference(runtime: 'openclaw' | 'hermes' | 'zeroclaw', bytes: Uint8Array) {
  const sb = await makeSandbox('lineage-restore-reference-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  await target.ensureAgent({ id: AGENT, name: 'Agent Name', runtime: 'openclaw' });
  await target.putSnapshot(AGENT, bytes);
  const workspace = path.join(sb.root, 'restored');
  await fs.mkdir(workspace);
  const runtimeAgent = runtime === 'zeroclaw' ? 'Agent Name' : undefined;
  const out = await restoreAgent({ runtime, target, agentId: AGENT, workspace, runtimeAgent, replace: false, alfHome: path.join(sb.root, 'home-2'), clock });
  /** A forced first sync of the restored workspace from a fresh ALF_HOME; the layers of the head it makes. */
  const forcedHead = async () => {
    await syncWorkspace({ runtime, workspace, runtimeAgent, target, alfHome: path.join(sb.root, 'home-3'), clock, forceFirstSync: true });
    const ledger = openLedger(sb.dataDir);
    const entries = listEntries({ ledger, agentId: AGENT });
    expect(entries.map((e) => e.kind)).toEqual(['snapshot', 'snapshot']);
    return (await readSnapshot(await readEntryBytes({ ledger, entry: entries[1]! }))).layers;
  };
  return { out, workspace, forcedHead };
}

describe.each(['openclaw', 'hermes', 'zeroclaw'] as const)('%s: a reference-made snapshot restored, then a forced first sync', (runtime) => {
  it('the restore says that no identity, principals or credentials are written back, and the forced head has none', async () => {
    const { out, forcedHead } = await restoredReference(runtime, syntheticAgentBytes());
    expect(out).toMatchObject({ action: 'initialize', applied: true });
    const warnings = out.warnings ?? [];
    expect(warnings.filter((w) => w.startsWith('identity.json: ')), warnings.join('\n')).toEqual([expect.stringContaining('will have no identity')]);
    // OpenClaw and Hermes read principals from the workspace: the next ordinary sync replaces them too.
    const who = runtime === 'zeroclaw' ? 'a first snapshot synced from this workspace (--force-first-sync, or a first sync to another target)' : 'the next sync from this workspace, and any first snapshot synced from it,';
    expect(warnings.filter((w) => w.startsWith('principals.json: '))).toEqual([
      expect.stringContaining(`${who} will not hold 3 of its 3 principals as restored — 2fbd4198-b94d-4609-98a1-20cfaff61574 (agent); f1138b25-32f5-4b23-952f-fc830bd548c3 (human); d0cb0a98-e397-4b59-95d3-4bc05ffef6da (human)`),
    ]);
    expect(warnings.filter((w) => w.startsWith('credentials.json: '))).toEqual([expect.stringContaining('4 credentials were not restored: lineage has no credential vault')]);
    const layers = await forcedHead();
    expect(layers.identity).toBeUndefined();
    expect(layers.principals).toBeUndefined();
    expect(layers.credentials).toBeUndefined();
  });
});

describe('openclaw: a reference-made snapshot without raw files, restored from its layers', () => {
  it('writes SOUL.md and USER.md from the prose, with the layers\' times, and says what of the layers they cannot hold', async () => {
    const reference = await readSnapshot(syntheticAgentBytes());
    const { out, workspace, forcedHead } = await restoredReference('openclaw', await writeSnapshot({ ...reference, raw: new Map() }));
    expect(await fs.readFile(path.join(workspace, 'SOUL.md'), 'utf8')).toBe('placeat veniam consectetur amet magnam, Hic Nullam');
    // The human principal with prose (the first human one has a structured profile only).
    expect(await fs.readFile(path.join(workspace, 'USER.md'), 'utf8')).toBe('nec');
    const mtime = async (rel: string) => formatNanos((await fs.stat(path.join(workspace, rel), { bigint: true })).mtimeNs);
    expect(await mtime('SOUL.md')).toBe('1993-11-16T11:36:37.183546Z');
    expect(await mtime('USER.md')).toBe('1997-04-09T09:19:38.055783Z');

    const warnings = out.warnings ?? [];
    expect(warnings.filter((w) => w.startsWith('identity.json: ')), warnings.join('\n')).toEqual([
      expect.stringContaining('the next sync from this workspace, and any first snapshot synced from it, will not hold its id, version, structured, prose.custom_blocks, source_format, raw_source: an OpenClaw workspace holds only an identity\'s prose'),
    ]);
    // The prose of d0cb0a98… comes back, as the one principal an OpenClaw workspace has (its own id).
    expect(warnings.filter((w) => w.startsWith('principals.json: '))).toEqual([expect.stringContaining('will not hold 3 of its 3 principals as restored')]);

    const layers = await forcedHead();
    expect(layers.identity).toMatchObject({ updated_at: '1993-11-16T11:36:37.183546Z', prose: { soul: 'placeat veniam consectetur amet magnam, Hic Nullam' } });
    expect(layers.principals).toMatchObject({ principals: [{ principal_type: 'human', profile: { updated_at: '1997-04-09T09:19:38.055783Z', prose: { user_profile: 'nec' } } }] });
    expect(layers.credentials).toBeUndefined();
  });
});
