import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { seedBrainDb, type SeedRow } from '@/lib/adapters/zeroclaw/test-support';
import { readDelta, readSnapshot } from '@/lib/core/archive';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const row = (id: string, key: string, content: string, agent: string, day: number): SeedRow => ({
  id, key, content, agent_id: agent, created_at: `2026-05-0${day}T10:00:00Z`, updated_at: `2026-05-0${day}T10:00:00Z`,
});
const ROWS = [
  row('10000000-0000-4000-8000-000000000001', 'gateway', 'The gateway is 10.20.0.5', A, 1),
  row('10000000-0000-4000-8000-000000000002', 'editor', 'Prefers vim keybindings', A, 2),
  row('10000000-0000-4000-8000-000000000003', 'queue', 'Use Postgres for the queue', A, 3),
  row('20000000-0000-4000-8000-000000000001', 'secret-b', 'Agent B private plan', B, 1),
  row('20000000-0000-4000-8000-000000000002', 'note-b', 'Agent B second note', B, 2),
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

describe('ZeroClaw: one shared brain.db, two agents', () => {
  it('syncs an edit, a delete and an insert as 1 update, 1 delete, 1 create, and restores only that agent', async () => {
    const sb = await makeSandbox('lineage-zc-');
    cleanups.push(sb.cleanup);
    await seedBrainDb({ workspace: sb.workspace, agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }, { id: B, alias: 'ledger-bot', created_at: '2026-05-01T00:00:00Z' }], rows: ROWS });
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const sync = () => syncWorkspace({ runtime: 'zeroclaw', workspace: sb.workspace, runtimeAgent: 'scout', target, alfHome: sb.alfHome, clock });
    const first = await sync();
    expect(first.sequence).toBe(0);

    const db = new Database(path.join(sb.workspace, 'memory', 'brain.db'));
    db.prepare("UPDATE memories SET content = 'The gateway is 10.20.0.9', updated_at = '2026-05-08T10:00:00Z' WHERE key = 'gateway' AND agent_id = ?").run(A);
    db.prepare("DELETE FROM memories WHERE key = 'editor' AND agent_id = ?").run(A);
    db.prepare("INSERT INTO memories (id, key, content, category, created_at, updated_at, agent_id) VALUES ('10000000-0000-4000-8000-000000000004', 'lesson', 'Never deploy on Fridays', 'core', '2026-05-08T11:00:00Z', '2026-05-08T11:00:00Z', ?)").run(A);
    db.prepare("UPDATE memories SET content = 'Agent B changed too' WHERE agent_id = ?").run(B);
    db.close();

    const second = await sync();
    expect(second).toMatchObject({ sequence: 1, delta: true, changes: { creates: 1, updates: 1, deletes: 1 } });

    const ledger = openLedger(sb.dataDir);
    const agentId = first.agent.alf_agent_id;
    const [snap, delta] = listEntries({ ledger, agentId });
    const d = await readDelta(await readEntryBytes({ ledger, entry: delta! }));
    const ops = Object.fromEntries(d.entries.map((e) => [e.operation, e.record.id]));
    expect(ops).toEqual({ update: '10000000-0000-4000-8000-000000000001', delete: '10000000-0000-4000-8000-000000000002', create: '10000000-0000-4000-8000-000000000004' });

    // Nothing of agent B ever reaches the ledger.
    const s = await readSnapshot(await readEntryBytes({ ledger, entry: snap! }));
    const everything = JSON.stringify([s.records, d.entries]) + [...s.raw.values(), ...d.rawChanged.values()].map((b) => Buffer.from(b).toString('latin1')).join('');
    expect(everything).not.toMatch(/Agent B|20000000-0000-4000-8000/);

    // Restore at sequence 0: exactly agent A's rows as they were.
    const out = path.join(sb.root, 'restored');
    await restoreAgent({ runtime: 'zeroclaw', target, agentId, atSequence: 0, out, runtimeAgent: 'scout', replace: false, alfHome: sb.alfHome, clock });
    const restored = new Database(path.join(out, 'data', 'memory', 'brain.db'), { readonly: true });
    const rows = restored.prepare('SELECT id, key, content, agent_id FROM memories ORDER BY id').all();
    const agentsRows = restored.prepare('SELECT alias FROM agents').all();
    restored.close();
    expect(rows).toEqual(ROWS.filter((r) => r.agent_id === A).map(({ id, key, content, agent_id }) => ({ id, key, content, agent_id })));
    expect(agentsRows).toEqual([{ alias: 'scout' }]);
  });
});
