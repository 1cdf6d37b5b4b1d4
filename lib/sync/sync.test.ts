import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SYNCED_MARKER_FILE } from '@/lib/adapters/shared';
import { readDelta } from '@/lib/core/archive';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { syncWorkspace } from './sync';
import { readSyncedFrom } from './synced-marker';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

async function setup() {
  const sb = await makeSandbox();
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  return { sb, sync };
}

const MEMORY_V1 = `# Curated Memories

## Deploy target
Production runs on host 10.0.4.17.

## Reference code
The reference code is ALPHA-7.

## Owner
Dana owns the billing service.

## Scratch
Remember to rotate the buffer.
`;

// Rewritten wholesale: re-ranked, one body replaced under its heading, one added, one removed.
const MEMORY_V2 = `# Curated Memories

## Owner
Dana owns the billing service.

## Reference code
The reference code is BRAVO-9 since the November rotation.

## Deploy target
Production runs on host 10.0.4.17.

## Lesson
Never deploy on Fridays.
`;

describe('sync: the curation example (DESIGN.md)', () => {
  it('syncs a wholesale MEMORY.md rewrite as exactly 1 update, 1 create, 1 delete', async () => {
    const { sb, sync } = await setup();
    await sb.write('MEMORY.md', MEMORY_V1);
    const first = await sync();
    expect(first).toMatchObject({ ok: true, sequence: 0, delta: false, no_changes: false });

    await sb.write('MEMORY.md', MEMORY_V2);
    const second = await sync();
    expect(second).toMatchObject({ sequence: 1, delta: true, changes: { creates: 1, updates: 1, deletes: 1 } });

    const ledger = openLedger(sb.dataDir);
    const [snapshotEntry, deltaEntry] = listEntries({ ledger, agentId: first.agent.alf_agent_id });
    expect(snapshotEntry!.kind).toBe('snapshot');
    const delta = await readDelta(await readEntryBytes({ ledger, entry: deltaEntry! }));
    const byOp = Object.fromEntries(delta.entries.map((e) => [e.operation, e.record]));
    expect(delta.entries).toHaveLength(3);
    expect(byOp.create!.content).toContain('Never deploy on Fridays');
    expect(byOp.delete!.content).toContain('rotate the buffer');
    expect(byOp.update!.content).toContain('BRAVO-9');

    // The replaced section keeps the id and created_at it was born with at sequence 0.
    const { readSnapshot } = await import('@/lib/core/archive');
    const base = await readSnapshot(await readEntryBytes({ ledger, entry: snapshotEntry! }));
    const born = base.records.find((r) => r.content.includes('ALPHA-7'))!;
    expect(byOp.update!.id).toBe(born.id);
    expect(byOp.update!.temporal.created_at).toBe(born.temporal.created_at);
    // The re-ranked sections produce no ops.
    const untouched = base.records.filter((r) => /Dana|10\.0\.4\.17/.test(r.content)).map((r) => r.id);
    expect(delta.entries.some((e) => untouched.includes(e.record.id))).toBe(false);
    expect([...delta.rawChanged.keys()]).toEqual(['raw/openclaw/MEMORY.md']);
  });

  it('an idle sync uploads nothing and consumes no sequence', async () => {
    const { sb, sync } = await setup();
    await sb.write('MEMORY.md', MEMORY_V1);
    await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
    const first = await sync();
    const idle = await sync();
    expect(idle).toMatchObject({ ok: true, sequence: 0, delta: false, no_changes: true });
    expect(idle.changes).toBeUndefined();
    const ledger = openLedger(sb.dataDir);
    expect(listEntries({ ledger, agentId: first.agent.alf_agent_id })).toHaveLength(1);

    // It still records what the workspace is synced from, when the marker no longer says so.
    const marker = path.join(sb.workspace, SYNCED_MARKER_FILE);
    const written = await fs.readFile(marker, 'utf8');
    await sync();
    expect(await fs.readFile(marker, 'utf8')).toBe(written); // already right: not rewritten
    await fs.rm(marker);
    await sync();
    expect(await readSyncedFrom(sb.workspace, first.agent.alf_agent_id)).toMatchObject({ agent_id: first.agent.alf_agent_id, sequence: 0 });
  });

  it('a raw-only change (a binary file) is a delta with no record ops', async () => {
    const { sb, sync } = await setup();
    await sb.write('MEMORY.md', MEMORY_V1);
    await sync();
    await sb.write('memory/blob.bin', new Uint8Array([0, 255, 254, 1, 0x80]));
    const out = await sync();
    expect(out).toMatchObject({ sequence: 1, delta: true, changes: { creates: 0, updates: 0, deletes: 0 }, raw: { changed: 1, deleted: 0 } });
  });
});
