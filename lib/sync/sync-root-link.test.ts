/**
 * Through a real sync: a Hermes home whose SOUL.md is a link to config.yaml and whose
 * memories/MEMORY.md is a link to ../.env uploads neither file's text (not as a raw file, not as
 * the identity layer, not as curated records), says each link once in the sync's warnings, and a
 * restore of what it uploaded has no SOUL.md.
 */
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { readSnapshot } from '@/lib/core/archive';
import { canonicalJson } from '@/lib/core/json';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace, type StateLayout } from './sync';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const SECRET = 'sk-root-link-5151';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

describe('a sync over root files that are links to secrets', () => {
  it.each(['store', 'alf'] as StateLayout[])('Hermes (%s layout): SOUL.md -> config.yaml and memories/MEMORY.md -> ../.env upload nothing of either', async (layout) => {
    const sb = await makeSandbox('lineage-rootlink-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    await seedStateDb(sb.workspace, [], []);
    await writeFiles(sb.workspace, { 'config.yaml': `model: m1\napi_key: ${SECRET}\n`, '.env': `OPENAI_API_KEY=${SECRET}\n`, 'memories/USER.md': 'Name: Dana\n' });
    await symlink('config.yaml', path.join(sb.workspace, 'SOUL.md'));
    await symlink('../.env', path.join(sb.workspace, 'memories', 'MEMORY.md'));
    const first = await syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target, alfHome: sb.alfHome, clock, layout });
    const agentId = first.agent.alf_agent_id;
    expect((first.warnings ?? []).filter((w) => w.includes('symbolic link')).map((w) => w.slice(0, w.indexOf(' is a symbolic link to ')))).toEqual(['SOUL.md', 'memories/MEMORY.md']);

    const ledger = openLedger(sb.dataDir);
    const snap = await readSnapshot(await readEntryBytes({ ledger, entry: listEntries({ ledger, agentId })[0]! }));
    expect([...snap.raw.keys()].sort()).toEqual(['raw/hermes/.alf-state-db-schema.json', 'raw/hermes/config.yaml', 'raw/hermes/memories/USER.md']);
    for (const [rel, bytes] of snap.raw) expect(Buffer.from(bytes).toString('latin1'), rel).not.toContain(SECRET);
    expect(canonicalJson(snap.records as never)).not.toContain(SECRET);
    expect(canonicalJson((snap.layers ?? {}) as never)).not.toContain(SECRET);

    const out = path.join(sb.root, 'restored');
    await restoreAgent({ runtime: 'hermes', target, agentId, out, replace: false, alfHome: sb.alfHome, clock });
    const restored = await readTree(out);
    expect(restored.has('SOUL.md')).toBe(false);
    expect(restored.has('memories/MEMORY.md')).toBe(false);
    for (const [rel, bytes] of restored) expect(bytes.toString('latin1'), rel).not.toContain(SECRET);
  });
});
