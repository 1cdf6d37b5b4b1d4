/**
 * Migration 0006 turns an index written with moves as a create (with `moved_from`) plus a tombstone
 * into the index the indexer writes now: one `move` version, no tombstone, counts moved apart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { HistoryGenerator } from './testing/generator';
import { dumpIndex, tempLedger } from './testing/temp-ledger';

const AGENT = '3f2d1c0b-2222-4a2b-8c3d-0000000000a6';
const { ledger, cleanup } = tempLedger();
afterAll(() => cleanup());

/** Rewrites the moves of the index the way indexes were written before migration 0006. */
function toOldRepresentation(): void {
  ledger.db.sqlite.exec(`
    INSERT INTO record_versions (agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type, namespace, status,
      origin_file, heading, tags, record_json, created_at, updated_at, observed_at, synced_at, moved_from)
    SELECT p.agent_id, p.record_id, m.seq, m.entry_kind, 'delete', p.content, p.content_sha256, p.memory_type, p.namespace, p.status,
      p.origin_file, p.heading, p.tags, p.record_json, p.created_at, p.updated_at, p.observed_at, m.synced_at, NULL
    FROM record_versions m JOIN record_versions p ON p.id = (
      SELECT w.id FROM record_versions w WHERE w.agent_id = m.agent_id AND w.record_id = m.moved_from
        AND (w.seq < m.seq OR (w.seq = m.seq AND w.entry_kind < m.entry_kind)) ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
    WHERE m.op = 'move';
    UPDATE record_versions SET op = 'create' WHERE op = 'move';
    UPDATE ledger_entries SET creates = creates + moves, deletes = deletes + moves, moves = 0;`);
}

it('converts moves written as a create and a tombstone into one move version, and the counts', async () => {
  const gen = new HistoryGenerator(ledger, AGENT, 6);
  gen.register();
  for (let i = 0; i < 5; i++) gen.addRecord();
  await gen.sync(0);
  for (let turn = 1; turn <= 25; turn++) {
    gen.randomMutations();
    await gen.sync(turn);
  }
  const expected = dumpIndex(ledger);
  const moves = (expected.record_versions as { op: string }[]).filter((v) => v.op === 'move').length;
  expect(moves).toBeGreaterThan(0);
  toOldRepresentation();
  expect(dumpIndex(ledger)).not.toEqual(expected);

  const file = path.resolve(process.cwd(), 'db/migrations/0006_moves_first_class.sql');
  const statements = fs.readFileSync(file, 'utf8').split('--> statement-breakpoint').map((s) => s.trim()).filter(Boolean);
  expect(statements[0]).toMatch(/^(--.*\n)*ALTER TABLE `ledger_entries` ADD `moves`/);
  ledger.db.sqlite.transaction(() => {
    for (const statement of statements.slice(1)) ledger.db.sqlite.exec(statement);
  })();
  expect(dumpIndex(ledger)).toEqual(expected);
  // FTS5's own check against its content (throws on a mismatch).
  expect(() => ledger.db.sqlite.prepare("INSERT INTO record_versions_fts(record_versions_fts, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
});
