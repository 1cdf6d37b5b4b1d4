import fs from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { runAdapterConformance } from '../conformance';
import { seedBrainDb, tempDir, type SeedRow } from './test-support';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const rows: SeedRow[] = [
  { id: '11111111-1111-4111-8111-111111111111', key: 'gateway', content: 'The gateway is 10.20.0.5', created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z', agent_id: A },
  { id: '22222222-2222-4222-8222-222222222222', key: 'editor', content: 'Prefers vim keybindings', created_at: '2026-05-02T10:00:00Z', updated_at: '2026-05-02T10:00:00Z', agent_id: A },
  { id: '33333333-3333-4333-8333-333333333333', key: 'queue', content: 'Use Redis Streams', category: 'procedure', created_at: '2026-05-03T10:00:00Z', updated_at: '2026-05-03T10:00:00Z', agent_id: A },
  { id: '44444444-4444-4444-8444-444444444444', key: 'other', content: 'Another agent secret', created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z', agent_id: B },
];
const brain = (ws: string) => path.join(ws, 'memory', 'brain.db');
const sql = (ws: string, fn: (db: Database.Database) => void) => {
  const db = new Database(brain(ws));
  try {
    fn(db);
  } finally {
    db.close();
  }
};

runAdapterConformance({
  runtime: 'zeroclaw',
  async create() {
    const workspace = await tempDir('conf-zeroclaw');
    await seedBrainDb({ workspace, agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }, { id: B, alias: 'other', created_at: '2026-05-01T00:00:00Z' }], rows });
    await fs.writeFile(path.join(workspace, 'SOUL.md'), '# Scout\n');
    return { workspace, runtimeAgent: 'scout' };
  },
  // Physical order changes (rowids) while every row stays the same.
  reorder: async ({ workspace }) =>
    sql(workspace, (db) => {
      const all = db.prepare('SELECT * FROM memories WHERE agent_id = ? ORDER BY rowid DESC').all(A) as Record<string, unknown>[];
      db.prepare('DELETE FROM memories WHERE agent_id = ?').run(A);
      for (const row of all) {
        const cols = Object.keys(row);
        db.prepare(`INSERT INTO memories (${cols.join(',')}) VALUES (${cols.map((c) => `@${c}`).join(',')})`).run(row);
      }
    }),
  async editInPlace({ workspace }) {
    sql(workspace, (db) => db.prepare("UPDATE memories SET content = 'The gateway is 10.20.0.9', updated_at = '2026-05-09T10:00:00Z' WHERE key = 'gateway' AND agent_id = ?").run(A));
    return '10.20.0.9';
  },
  async removeItem({ workspace }) {
    sql(workspace, (db) => db.prepare("DELETE FROM memories WHERE key = 'editor' AND agent_id = ?").run(A));
    return 'vim keybindings';
  },
  cleanup: ({ workspace }) => fs.rm(workspace, { recursive: true, force: true }),
});
