/**
 * A ZeroClaw workspace on a read-only mount (a real EROFS, in a mount namespace of the test's own):
 * its brain.db in WAL mode with rows only in an un-checkpointed `-wal` and no `-shm`, which SQLite
 * cannot make there. An export reads the WAL's rows; a sync, which must write `.alf-synced.json`
 * before it uploads, is refused naming that file — not an internal error — and leaves nothing that
 * stops the sync once the workspace is writable again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '@/lib/core/archive';
import { capturedBrainSchema, insertSeedRow } from '@/lib/adapters/zeroclaw/test-support';
import { inMountNamespace, runCli } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');
const ALF_ID = '5a5a5a5a-4444-4a2b-8c3d-000000000001';
const AGENT = { id: 'a0000000-0000-4000-8000-00000000000a', alias: 'main', created_at: '2026-01-01T00:00:00Z' };

let tmp: string;
let ws: string;
let dbFile: string;
let fresh: string;

const row = (n: number, content: string) => ({
  id: `a0000000-1111-4111-8111-00000000000${n}`, key: `k${n}`, content, created_at: '2026-01-02T00:00:00Z', updated_at: '2026-01-02T00:00:00Z', agent_id: AGENT.id,
});

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-ro-ws-'));
  ws = path.join(tmp, 'ws');
  fs.mkdirSync(path.join(ws, 'data', 'memory'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'SOUL.md'), '# Soul\n');
  fs.writeFileSync(path.join(ws, '.alf-agent-id'), ALF_ID);
  dbFile = path.join(ws, 'data', 'memory', 'brain.db');
  const db = new Database(dbFile);
  db.exec(await capturedBrainSchema());
  db.prepare('INSERT INTO agents (id, alias, created_at) VALUES (@id, @alias, @created_at)').run(AGENT);
  insertSeedRow(db, row(1, 'checkpointed'));
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  insertSeedRow(db, row(2, 'only in the WAL'));
  // The files as the agent leaves them while it runs (a clean close would checkpoint and remove the -wal).
  fs.copyFileSync(dbFile, `${dbFile}.copy`);
  fs.copyFileSync(`${dbFile}-wal`, `${dbFile}-wal.copy`);
  db.close();
  fs.renameSync(`${dbFile}.copy`, dbFile);
  fs.renameSync(`${dbFile}-wal.copy`, `${dbFile}-wal`);
  fs.rmSync(`${dbFile}-shm`, { force: true });
  // The same workspace without its id: an export mints one, which it must write there.
  fresh = path.join(tmp, 'fresh');
  fs.cpSync(ws, fresh, { recursive: true });
  fs.rmSync(path.join(fresh, '.alf-agent-id'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a ZeroClaw workspace on a read-only mount', () => {
  it('exports the rows still in the -wal; a sync is refused naming .alf-synced.json (an export that mints the id, .alf-agent-id), then syncs once writable', async () => {
    const lineage = (args: string) => `"${process.execPath}" "${BIN}" ${args} || true`;
    const data = path.join(tmp, 'data');
    const result = await inMountNamespace(
      [
        `mount --bind "${ws}" "${ws}"`,
        `mount -o remount,bind,ro "${ws}"`,
        `mount --bind "${fresh}" "${fresh}"`,
        `mount -o remount,bind,ro "${fresh}"`,
        lineage(`export -r zeroclaw -w "${ws}" -o "${path.join(tmp, 'out.alf')}"`),
        lineage(`sync -r zeroclaw -w "${ws}" --data "${data}"`),
        lineage(`export -r zeroclaw -w "${fresh}" -o "${path.join(tmp, 'fresh.alf')}"`),
      ].join('\n'),
      { ALF_HOME: path.join(tmp, 'home'), LINEAGE_RESIDENT: '0', LINEAGE_DATABASE_URL: '', LINEAGE_BLOB_URL: '' },
    );
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines, result.stderr).toHaveLength(3);
    const [exported, synced, minted] = lines;
    expect(exported, JSON.stringify(lines)).toMatchObject({ ok: true, memory_records: 2 });
    const snapshot = await readSnapshot(new Uint8Array(fs.readFileSync(path.join(tmp, 'out.alf'))));
    expect(snapshot.records.map((r) => r.content).sort()).toEqual(['checkpointed', 'only in the WAL']);
    expect(synced).toMatchObject({
      ok: false,
      code: 'workspace_file_invalid',
      error: `cannot write ${path.join(ws, '.alf-synced.json')} (it is on a read-only filesystem): lineage keeps what the workspace was last synced from in a file of that name`,
      hint: `make ${ws} writable for lineage, then run the command again`,
    });
    expect(minted).toMatchObject({
      ok: false,
      code: 'workspace_file_invalid',
      error: `cannot write ${path.join(fresh, '.alf-agent-id')} (it is on a read-only filesystem): lineage keeps the agent's id in a file of that name`,
    });
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(fs.readdirSync(ws).sort()).toEqual(['.alf-agent-id', 'SOUL.md', 'data']);
    expect(fs.readdirSync(path.join(ws, 'data', 'memory')).sort()).toEqual(['brain.db', 'brain.db-wal']);
    const writable = await runCli(['sync', '-r', 'zeroclaw', '-w', ws, '--data', data], { ALF_HOME: path.join(tmp, 'home'), LINEAGE_RESIDENT: '0', LINEAGE_DATABASE_URL: '', LINEAGE_BLOB_URL: '' });
    expect(writable.json).toMatchObject({ ok: true, sequence: 0, agent: { alf_agent_id: ALF_ID } });
  }, 120_000);
});
