import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { insert, seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { readDelta } from '@/lib/core/archive';
import { hermesCuratedId, hermesSessionId } from '@/lib/core/ids';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

async function hermesHome() {
  const sb = await makeSandbox('lineage-hermes-');
  cleanups.push(sb.cleanup);
  await seedStateDb(sb.workspace, [
    { id: 'sess-closed', source: 'cli', title: 'Deploy review', started_at: 1780000000, ended_at: 1780000600 },
    { id: 'sess-open', source: 'telegram', title: 'Ongoing', started_at: 1780001000 },
  ], [
    { session_id: 'sess-closed', role: 'user', content: 'Review the deploy', timestamp: 1780000010 },
    { session_id: 'sess-open', role: 'user', content: 'Hello again', timestamp: 1780001010 },
  ]);
  await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n§\nThe gateway is 10.20.0.5.\n§\nSame note.\n§\nSame note.\n', 'memories/USER.md': 'Name: Dana\n', '.env': 'OPENAI_API_KEY=sk-secret\n' });
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const sync = () => syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  const deltaOf = async (agentId: string) => {
    const ledger = openLedger(sb.dataDir);
    const entries = listEntries({ ledger, agentId });
    return readDelta(await readEntryBytes({ ledger, entry: entries[entries.length - 1]! }));
  };
  return { sb, sync, deltaOf };
}

describe('Hermes through the sync pipeline', () => {
  it('uses the reference ids, ignores re-ordered § entries, and sees a new session + a message in an open one as 1 create + 1 update', async () => {
    const { sb, sync, deltaOf } = await hermesHome();
    const first = await sync();
    const agentId = first.agent.alf_agent_id;

    // Re-ordering curated entries: the file's bytes change, the records do not.
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Same note.\n§\nThe gateway is 10.20.0.5.\n§\nSame note.\n§\nAlways run tests first.\n' });
    const reordered = await sync();
    expect(reordered).toMatchObject({ sequence: 1, changes: { creates: 0, updates: 0, deletes: 0 } });

    const db = new Database(path.join(sb.workspace, 'state.db'));
    insert(db, 'sessions', { id: 'sess-new', source: 'cli', title: 'New chat', started_at: 1780002000, ended_at: 1780002100 });
    insert(db, 'messages', { session_id: 'sess-new', role: 'user', content: 'A brand new question', timestamp: 1780002010 });
    insert(db, 'messages', { session_id: 'sess-open', role: 'assistant', content: 'Still here, the gateway moved', timestamp: 1780001500 });
    db.close();
    const third = await sync();
    expect(third).toMatchObject({ sequence: 2, changes: { creates: 1, updates: 1, deletes: 0 } });
    const delta = await deltaOf(agentId);
    const ids = Object.fromEntries(delta.entries.map((e) => [e.operation, e.record.id]));
    expect(ids).toEqual({ create: hermesSessionId('sess-new'), update: hermesSessionId('sess-open') });
    expect(delta.entries.find((e) => e.operation === 'update')!.record.content).toContain('the gateway moved');

    // Curated ids follow the reference, occurrence rule included; .env and state.db never travel.
    const ledger = openLedger(sb.dataDir);
    const { readSnapshot } = await import('@/lib/core/archive');
    const snap = await readSnapshot(await readEntryBytes({ ledger, entry: listEntries({ ledger, agentId })[0]! }));
    const curated = snap.records.filter((r) => r.namespace === 'curated').map((r) => r.id).sort();
    expect(curated).toEqual([hermesCuratedId('Always run tests first.', 0), hermesCuratedId('The gateway is 10.20.0.5.', 0), hermesCuratedId('Same note.', 0), hermesCuratedId('Same note.', 1)].sort());
    expect([...snap.raw.keys()].some((p) => /(^|\/)(\.env|state\.db)$/.test(p))).toBe(false);
  });
});
