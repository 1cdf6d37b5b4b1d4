/**
 * Upgrading a data directory whose history index an older lineage wrote, before renamed sections were
 * linked (a `## Boston` → `## Boston Office` rename held as a delete and a create): every command
 * migrates it and serves it, and the rename stays unlinked until `lineage index --rebuild`. Before,
 * nothing said so: `lineage doctor` answered a clean `{ok: true}`. It now names the entries and the
 * command to run, and says nothing once the index is rebuilt (nor for an index this version wrote).
 *
 * The older index is written here the way it held a rename (no older code runs): the move version
 * back to a create without `moved_from`, plus a tombstone of the renamed-from record at that
 * sequence, and the entry counting them as a create and a delete.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { openLedger } from '@/lib/ledger';
import { dumpIndex } from '@/lib/history/testing/temp-ledger';
import { runCli } from '../cli/run-cli';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-upgrade-renames-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const ws = path.join(root, 'ws');
const data = path.join(root, 'data');
const env = { ALF_HOME: path.join(root, 'home') };

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  fs.writeFileSync(path.join(ws, rel), text);
}

/** The rename at `seq` as an index written before renames were linked held it. */
function writeRenameAsBefore(seq: number): void {
  const ledger = openLedger(data);
  try {
    const sqlite = ledger.db.sqlite;
    const move = sqlite.prepare(`SELECT id, agent_id, moved_from FROM record_versions WHERE op = 'move' AND seq = ? AND heading = 'Boston Office'`)
      .get(seq) as { id: number; agent_id: string; moved_from: string };
    sqlite.transaction(() => {
      sqlite.prepare(`INSERT INTO record_versions (agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type, namespace, status,
          origin_file, heading, tags, record_json, created_at, updated_at, observed_at, synced_at, moved_from)
        SELECT p.agent_id, p.record_id, m.seq, m.entry_kind, 'delete', p.content, p.content_sha256, p.memory_type, p.namespace, p.status,
          p.origin_file, p.heading, p.tags, p.record_json, p.created_at, p.updated_at, p.observed_at, m.synced_at, NULL
        FROM record_versions m JOIN record_versions p ON p.agent_id = m.agent_id AND p.record_id = m.moved_from AND p.seq < m.seq
        WHERE m.id = ? ORDER BY p.seq DESC LIMIT 1`).run(move.id);
      sqlite.prepare(`UPDATE record_versions SET op = 'create', moved_from = NULL WHERE id = ?`).run(move.id);
      sqlite.prepare(`UPDATE ledger_entries SET creates = creates + 1, deletes = deletes + 1, moves = moves - 1 WHERE agent_id = ? AND seq = ? AND kind = 'delta'`)
        .run(move.agent_id, seq);
    })();
  } finally {
    closeDatabase(ledger.db);
  }
}

function dump(): Record<string, unknown[]> {
  const ledger = openLedger(data);
  try {
    return dumpIndex(ledger);
  } finally {
    closeDatabase(ledger.db);
  }
}

it('doctor says an older index holds renames unlinked and names `index --rebuild`; after it, the index is the one this version writes', async () => {
  write('MEMORY.md', '# Memory\n\n## Boston\n\nThe office is in Boston, 6th floor.\n\n## Gateway\n\nThe gateway IP is 10.20.0.9.\n');
  write('memory/semantic/infrastructure.md', '# Infrastructure\n\n## Database\n\nPostgres 15 on db1.\n');
  expect((await runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data], env)).json).toMatchObject({ ok: true, sequence: 0 });
  // A heading renamed in its file, and a section moved unchanged to another file (linked by every index since 0006).
  write('MEMORY.md', '# Memory\n\n## Boston Office\n\nThe office is in Boston, 6th floor.\n');
  write('memory/semantic/infrastructure.md', '# Infrastructure\n\n## Database\n\nPostgres 15 on db1.\n\n## Gateway\n\nThe gateway IP is 10.20.0.9.\n');
  const sync = await runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data], env);
  expect(sync.json).toMatchObject({ ok: true, sequence: 1 });
  const agent = (sync.json.agent as { alf_agent_id: string }).alf_agent_id;

  // An index this version wrote: nothing to say.
  const fresh = dump();
  const clean = await runCli(['doctor', '--data', data], env);
  expect(clean.json).toEqual({ ok: true, damaged: [], unledgered: [], recovered: [], leftovers: [], removed: [], index_pending: [] });
  expect(clean.stderr).not.toContain('older lineage');

  writeRenameAsBefore(1);
  expect(dump()).not.toEqual(fresh);
  const told = await runCli(['doctor', '--data', data], env);
  expect(told.code).toBe(0);
  // Only the rename: the cross-file move is linked in the older index too.
  expect(told.json).toMatchObject({ ok: true, index_unlinked_moves: [{ agent_id: agent, sequence: 1, kind: 'delta', moves: 1 }] });
  expect(told.stderr).toContain(`the history index was written by an older lineage: 1 move(s) or renamed section(s) in 1 ledger entry (the first: agent ${agent} sequence 1)`);
  expect(told.stderr).toContain(`Run \`lineage index --rebuild --data ${data}\` once`);

  expect((await runCli(['index', '--rebuild', '--data', data], env)).json).toMatchObject({ ok: true });
  expect(dump()).toEqual(fresh);
  const after = await runCli(['doctor', '--data', data], env);
  expect(after.json).not.toHaveProperty('index_unlinked_moves');
  expect(after.stderr).not.toContain('older lineage');
}, 120_000);
