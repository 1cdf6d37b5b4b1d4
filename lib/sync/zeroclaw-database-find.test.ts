/**
 * Which ZeroClaw database a sync and a restore -w open when a link or a directory stands where ZeroClaw
 * keeps its store (`data/memory/brain.db`, then `memory/brain.db`, `memory.db`, then a shallow search).
 * Before, `findBrainDb` passed such a place by and took the next database it found: a directory on the
 * way that is a link to nothing (`data -> /gone`), a `brain.db` that is a directory, or a directory link
 * out of the workspace whose target has no database there — an older `memory/brain.db` was then synced
 * as the agent's current state (its delta deleted the memories made since) and planned by the restore.
 * Now the first candidate such a link or directory stands on is the one found, and the sync and the
 * restore refuse it (`workspace_file_invalid`, naming the link or the directory), nothing read, written
 * or sent, the ledger's head as it was. A workspace with no `data/` at all, or a `data/` (or a link
 * inside to a directory) without a database, still uses `memory/brain.db`. Real syncs into a --data
 * directory, real restores.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AdapterError } from '@/lib/adapters/shared/errors';
import { zeroclawAlfAgentId } from '@/lib/adapters/zeroclaw';
import { insertSeedRow, seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { treeAndBytes } from './testing/file-tree';
import { makeSandbox, steppingClock } from './testing/workspace';

const AGENT = 'aaaaaaaa-0000-4000-8000-00000000000a';
const row = (n: number, key: string, content: string) => ({
  id: `10000000-0000-4000-8000-00000000000${n}`, key, content, agent_id: AGENT, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z',
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/**
 * A real first sync of agent scout (two memories) with its database at `dbRel`, then a copy of that
 * database at `older` (when given), then a third memory and a second sync (a delta): the copy is older.
 */
async function synced(dbRel: string, older?: string) {
  const sb = await makeSandbox('lineage-zc-find-');
  cleanups.push(sb.cleanup);
  const ws = sb.workspace;
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const db = await seedBrainDb({ workspace: ws, rel: dbRel, agents: [{ id: AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
    row(1, 'gateway', 'The gateway is 10.20.0.5'), row(2, 'region', 'Deploys go to eu-west'),
  ] });
  fs.writeFileSync(path.join(ws, 'SOUL.md'), 'Calm.\n');
  const sync = () => syncWorkspace({ runtime: 'zeroclaw', workspace: ws, runtimeAgent: 'scout', target, alfHome: sb.alfHome, clock });
  const first = await sync();
  expect(first).toMatchObject({ sequence: 0, delta: false });
  if (older !== undefined) {
    fs.mkdirSync(path.dirname(path.join(ws, ...older.split('/'))), { recursive: true });
    fs.copyFileSync(db, path.join(ws, ...older.split('/')));
  }
  const open = new Database(db);
  insertSeedRow(open, row(3, 'oncall', 'Ana is on call this week'));
  open.close();
  expect(await sync()).toMatchObject({ sequence: 1, delta: true, changes: { creates: 1, updates: 0, deletes: 0 } });
  const agentId = first.agent.alf_agent_id;
  const outside = path.join(sb.root, 'elsewhere');
  fs.mkdirSync(outside);
  const restore = () => restoreAgent({ runtime: 'zeroclaw', agentId, target, alfHome: sb.alfHome, workspace: ws, runtimeAgent: 'scout', clock, replace: true });
  const head = async () => {
    const entry = await target.latestEntry(agentId);
    return entry && { sequence: entry.sequence, kind: entry.kind };
  };
  return { sb, ws, db, outside, sync, restore, head };
}

/** `run` refused as `workspace_file_invalid` with `message`, nothing under `dirs` changed, the ledger's head as it was (1). */
async function refusedUnchanged(run: () => Promise<unknown>, dirs: string[], head: () => Promise<unknown>, message: string): Promise<AdapterError> {
  const before = dirs.map(treeAndBytes);
  const error = await run().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AdapterError);
  expect(error).toMatchObject({ code: 'workspace_file_invalid', message });
  expect(dirs.map(treeAndBytes)).toEqual(before);
  expect(await head()).toEqual({ sequence: 1, kind: 'delta' });
  return error as AdapterError;
}

const abs = (ws: string, rel: string) => path.join(ws, ...rel.split('/'));

describe('a directory on the way to data/memory/brain.db that is a link to nothing', () => {
  it.each([
    ['data -> nothing, beside an older memory/brain.db', 'data', 'memory/brain.db'],
    ['data/memory -> nothing, beside an older memory/brain.db', 'data/memory', 'memory/brain.db'],
    ['data -> nothing, alone (not "no brain.db")', 'data', undefined],
  ])('%s: the sync and the restore are refused naming the link, nothing read or sent', async (_case, linkRel, older) => {
    const { sb, ws, outside, sync, restore, head } = await synced('data/memory/brain.db', older);
    // The directory moved away, a link to where it is not left in its place.
    fs.renameSync(abs(ws, linkRel), path.join(outside, 'moved'));
    fs.symlinkSync(path.join(outside, 'gone'), abs(ws, linkRel));
    const error = await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database data/memory/brain.db is behind the symbolic link ${linkRel} to ${path.join(outside, 'gone')}, which does not exist; neither is it taken for no database nor is another database of the workspace taken for it (its records would be deleted or reverted); nothing was read or sent`);
    expect(error.hint).toBe(`put back the directory the link ${abs(ws, linkRel)} leads to, or replace the link with it, then sync again`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: ${linkRel} is a symbolic link to a path that does not exist`);
    // restore -w without --agent reads the database to tell the agent: refused the same way.
    await expect(zeroclawAlfAgentId(ws, 'scout')).rejects.toMatchObject({ code: 'workspace_file_invalid', message: `cannot restore into ${ws}: ${linkRel} is a symbolic link to a path that does not exist` });
    // The directory put back: the third memory is still there, nothing to send.
    fs.rmSync(abs(ws, linkRel));
    fs.renameSync(path.join(outside, 'moved'), abs(ws, linkRel));
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 1 });
  });
});

describe('a brain.db that is a directory', () => {
  it.each([
    ['data/memory/brain.db, beside an older memory/brain.db', 'data/memory/brain.db', 'memory/brain.db'],
    ['data/memory/brain.db, alone (not "no brain.db")', 'data/memory/brain.db', undefined],
    ['memory/brain.db (no data/), beside an older old/brain.db the shallow search finds', 'memory/brain.db', 'old/brain.db'],
  ])('%s: the sync and the restore are refused naming it, nothing read or sent', async (_case, dbRel, older) => {
    const { sb, ws, db, outside, sync, restore, head } = await synced(dbRel, older);
    fs.renameSync(db, path.join(outside, 'brain.db'));
    fs.mkdirSync(db);
    const error = await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database ${dbRel} is a directory, not ZeroClaw's SQLite file; neither is it taken for no database nor is another database of the workspace taken for it (its memories would be deleted or reverted); nothing was read or sent`);
    expect(error.hint).toBe(`put ZeroClaw's brain.db in place of ${db}, then sync again`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: ${dbRel} is a directory there, where the restore writes a file`);
    await expect(zeroclawAlfAgentId(ws, 'scout')).rejects.toMatchObject({ code: 'workspace_file_invalid', message: `cannot restore into ${ws}: ${dbRel} is a directory there, where the restore writes a file` });
    fs.rmdirSync(db);
    fs.renameSync(path.join(outside, 'brain.db'), db);
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 1 });
  });

  it('a FIFO in data/memory/brain.db\'s place, beside an older memory/brain.db: refused as not a regular file, never opened (a read would wait forever)', async () => {
    const { sb, ws, db, outside, sync, restore, head } = await synced('data/memory/brain.db', 'memory/brain.db');
    fs.renameSync(db, path.join(outside, 'brain.db'));
    execFileSync('mkfifo', [db]);
    await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database data/memory/brain.db is not a regular file, not ZeroClaw's SQLite file; neither is it taken for no database nor is another database of the workspace taken for it (its memories would be deleted or reverted); nothing was read or sent`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: data/memory/brain.db is not a regular file there, where the restore writes a file`);
  });

  it('a link inside the workspace to a directory, in brain.db\'s place: refused the same way', async () => {
    const { sb, ws, db, outside, sync, restore, head } = await synced('data/memory/brain.db', 'memory/brain.db');
    fs.renameSync(db, path.join(outside, 'brain.db'));
    fs.mkdirSync(path.join(ws, 'stores', 'brain'), { recursive: true });
    fs.symlinkSync('../../stores/brain', db);
    await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database data/memory/brain.db is a directory, not ZeroClaw's SQLite file; neither is it taken for no database nor is another database of the workspace taken for it (its memories would be deleted or reverted); nothing was read or sent`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: data/memory/brain.db is a directory there, where the restore writes a file`);
  });
});

describe('a directory link out of the workspace on the way to data/memory/brain.db, no database behind it', () => {
  it('the first candidate it makes unreachable refuses: memory/brain.db is not used silently', async () => {
    const { sb, ws, outside, sync, restore, head } = await synced('memory/brain.db');
    // ZeroClaw's data directory, on another disk, holding no memory/brain.db.
    fs.mkdirSync(path.join(outside, 'data', 'memory'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'data'), path.join(ws, 'data'));
    const leads = path.join(fs.realpathSync(outside), 'data', 'memory', 'brain.db');
    const error = await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database data/memory/brain.db leads to ${leads}, outside the workspace, through the symbolic link data, and a sync follows links only inside it; nothing was read or sent`);
    expect(error.hint).toContain(`replace the link ${path.join(ws, 'data')}`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: data is a symbolic link to ${leads}, outside the workspace, and a restore writes only inside it`);
    // The link removed: memory/brain.db is the database again, nothing to send.
    fs.rmSync(path.join(ws, 'data'));
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 1 });
  });
});

describe('memory/brain.db where data/memory/brain.db is simply not there: used as before', () => {
  it.each([
    ['no data/ at all', () => {}],
    ['a data/ directory holding no database', (ws: string) => fs.mkdirSync(path.join(ws, 'data', 'memory'), { recursive: true })],
    ['data -> a directory inside the workspace holding no database', (ws: string) => {
      fs.mkdirSync(path.join(ws, 'stores'));
      fs.symlinkSync('stores', path.join(ws, 'data'));
    }],
  ])('%s: memory/brain.db synced, restored', async (_case, prepare) => {
    const { ws, db, sync, restore } = await synced('memory/brain.db');
    prepare(ws);
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 1 });
    const memories = new Database(db);
    memories.prepare('DELETE FROM memories WHERE key = ?').run('oncall');
    memories.close();
    fs.writeFileSync(path.join(ws, 'SOUL.md'), 'Edited.\n'); // a prompt-update, which --replace writes
    expect(await restore()).toMatchObject({ action: 'prompt-update', applied: true, sequence: 1 });
    const restored = new Database(db, { readonly: true });
    expect(restored.prepare('SELECT key FROM memories ORDER BY key').all()).toEqual([{ key: 'gateway' }, { key: 'oncall' }, { key: 'region' }]);
    restored.close();
    expect(fs.existsSync(path.join(ws, 'data', 'memory', 'brain.db'))).toBe(false);
  });
});

describe('a file where ZeroClaw keeps a directory on the way to data/memory/brain.db', () => {
  it.each([
    ['data a file, beside an older memory/brain.db', 'data', 'memory/brain.db', 'a file', 'which is a file'],
    ['data/memory a file, beside an older memory/brain.db', 'data/memory', 'memory/brain.db', 'a file', 'which is a file'],
    ['data a file, alone (not "no brain.db")', 'data', undefined, 'a file', 'which is a file'],
    ['data a FIFO, beside an older memory/brain.db', 'data', 'memory/brain.db', 'neither a file nor a directory', 'which is neither a file nor a directory'],
  ])('%s: the sync and the restore are refused naming it, the older database not read', async (_case, blockRel, older, found, which) => {
    const { sb, ws, outside, sync, restore, head } = await synced('data/memory/brain.db', older);
    // ZeroClaw's data directory moved away, something else left under its name.
    fs.renameSync(abs(ws, blockRel), path.join(outside, 'moved'));
    if (found === 'a file') fs.writeFileSync(abs(ws, blockRel), 'not a directory\n');
    else execFileSync('mkfifo', [abs(ws, blockRel)]);
    const error = await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database data/memory/brain.db is under ${blockRel}, ${which} where ZeroClaw keeps a directory; neither is it taken for no database nor is another database of the workspace taken for it (its memories would be deleted or reverted); nothing was read or sent`);
    expect(error.hint).toBe(`put ZeroClaw's directory back in place of ${abs(ws, blockRel)} (or move what is there out of the way), then sync again`);
    const restoreMessage = `cannot restore into ${ws}: ${blockRel} is ${found} there, where the restore writes a directory`;
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, restoreMessage);
    // restore -w without --agent reads the database to tell the agent: refused the same way, the older one not read.
    await expect(zeroclawAlfAgentId(ws, 'scout')).rejects.toMatchObject({ code: 'workspace_file_invalid', message: restoreMessage });
    // The directory put back: the third memory is still there, nothing to send.
    fs.rmSync(abs(ws, blockRel));
    fs.renameSync(path.join(outside, 'moved'), abs(ws, blockRel));
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 1 });
  });

  it('data -> a file inside the workspace: refused the same way, naming the link', async () => {
    const { sb, ws, outside, sync, restore, head } = await synced('data/memory/brain.db', 'memory/brain.db');
    fs.renameSync(abs(ws, 'data'), path.join(outside, 'moved'));
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'a file\n');
    fs.symlinkSync('notes.txt', abs(ws, 'data'));
    await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database data/memory/brain.db is under data, which is a file where ZeroClaw keeps a directory; neither is it taken for no database nor is another database of the workspace taken for it (its memories would be deleted or reverted); nothing was read or sent`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: data is a file there, where the restore writes a directory`);
  });
});

describe('the shallow search for brain.db reads nothing outside the workspace', () => {
  /** Another agent's database outside the workspace, at `<outside>/other/brain.db`. */
  const otherDatabase = async (outside: string) => {
    await seedBrainDb({ workspace: outside, rel: 'other/brain.db', agents: [{ id: 'bbbbbbbb-0000-4000-8000-00000000000b', alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
      { ...row(9, 'other', 'Another agent\'s memory'), agent_id: 'bbbbbbbb-0000-4000-8000-00000000000b' },
    ] });
    return path.join(outside, 'other');
  };

  it('a directory link out of the workspace before the workspace\'s own stores/brain.db: not followed, the workspace\'s database synced and restored, the link said', async () => {
    const { ws, db, outside, sync, restore, head } = await synced('stores/brain.db');
    // `archive` sorts before `stores`: the search met the other agent's database first.
    fs.symlinkSync(await otherDatabase(outside), path.join(ws, 'archive'));
    const before = treeAndBytes(outside);
    expect(await sync()).toEqual(expect.objectContaining({
      no_changes: true, sequence: 1,
      warnings: [`stores/brain.db was synced as the database: the search for brain.db did not follow the symbolic link archive -> ${path.join(fs.realpathSync(outside), 'other')} (out of the workspace or to nothing), and a database behind it is not read; move the agent's database to data/memory/brain.db if stores/brain.db is not it`],
    }));
    const memories = new Database(db);
    memories.prepare('DELETE FROM memories WHERE key = ?').run('oncall');
    memories.close();
    fs.writeFileSync(path.join(ws, 'SOUL.md'), 'Edited.\n'); // a prompt-update, which --replace writes
    expect(await restore()).toMatchObject({ action: 'prompt-update', applied: true, sequence: 1, written: expect.arrayContaining(['stores/brain.db']) });
    const restored = new Database(db, { readonly: true });
    expect(restored.prepare('SELECT key FROM memories ORDER BY key').all()).toEqual([{ key: 'gateway' }, { key: 'oncall' }, { key: 'region' }]);
    restored.close();
    expect(treeAndBytes(outside)).toEqual(before);
    expect(await head()).toEqual({ sequence: 1, kind: 'delta' });
  });

  it('a workspace whose only brain.db is behind a directory link out of it: no brain.db there, the one outside neither named nor read', async () => {
    const sb = await makeSandbox('lineage-zc-find-out-');
    cleanups.push(sb.cleanup);
    const outside = path.join(sb.root, 'elsewhere');
    fs.mkdirSync(outside);
    fs.symlinkSync(await otherDatabase(outside), path.join(sb.workspace, 'archive'));
    // `up -> ..`: the sandbox's root, holding `elsewhere/other/brain.db` two levels down.
    fs.symlinkSync('..', path.join(sb.workspace, 'up'));
    fs.writeFileSync(path.join(sb.workspace, 'SOUL.md'), 'Calm.\n');
    const clock = steppingClock();
    const before = [sb.workspace, outside].map(treeAndBytes);
    const error = await syncWorkspace({ runtime: 'zeroclaw', workspace: sb.workspace, runtimeAgent: 'scout', target: localTarget(sb.dataDir, clock), alfHome: sb.alfHome, clock }).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ code: 'workspace_missing', message: `no brain.db under ${sb.workspace} (looked for data/memory/brain.db, memory/brain.db, memory.db and searched 3 levels deep)` });
    expect([sb.workspace, outside].map(treeAndBytes)).toEqual(before);
    expect(await zeroclawAlfAgentId(sb.workspace, 'scout')).toBeNull();
  });
});

// Permissions stop no read of root's: run as another user (the break-test ran them as nobody).
describe.skipIf(process.getuid?.() === 0)('a database that is there but cannot be read', () => {
  it.each([
    ['the directory data cannot be searched (chmod 000), beside an older memory/brain.db', 'data', 0o755,
      (ws: string) => `cannot sync ${ws}: its database data/memory/brain.db cannot be reached: the directory data cannot be searched (EACCES); neither is it taken for no database nor is another database of the workspace taken for it (its records would be deleted or reverted); nothing was read or sent`,
      (ws: string) => `cannot restore into ${ws}: the directory data, on the way to the database data/memory/brain.db, cannot be searched (EACCES)`],
    ['data/memory/brain.db unreadable (chmod 000)', 'data/memory/brain.db', 0o644,
      (ws: string) => `cannot sync ${ws}: its database data/memory/brain.db cannot be read (EACCES); nothing was read or sent`,
      (ws: string) => `cannot restore into ${ws}: data/memory/brain.db, the database the restore opens, cannot be read (EACCES)`],
  ])('%s: the sync and the restore are refused naming it, not an internal error, the older database not read', async (_case, rel, mode, syncMessage, restoreMessage) => {
    const { sb, ws, outside, sync, restore, head } = await synced('data/memory/brain.db', 'memory/brain.db');
    fs.chmodSync(abs(ws, rel), 0o000);
    try {
      await refusedUnchanged(sync, [outside, sb.alfHome], head, syncMessage(ws));
      await refusedUnchanged(restore, [outside, sb.alfHome], head, restoreMessage(ws));
    } finally {
      fs.chmodSync(abs(ws, rel), mode);
    }
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 1 });
  });
});
