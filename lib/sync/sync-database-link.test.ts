/**
 * A workspace synced with its database in it, whose database then becomes a symbolic link out of the
 * workspace (`state.db -> /elsewhere/state.db`, the database moved there; ZeroClaw's `brain.db`, or a
 * directory on its way) or to nothing. Before, a Hermes sync took such a `state.db` for no database and
 * its delta deleted every session at the head; a ZeroClaw sync read the database outside, which a
 * restore into the same workspace refuses to write. Now the sync is refused as the restore is, before
 * anything is read, written or sent (`workspace_file_invalid`, the link and where it leads named): the
 * ledger's head, the sync state and the files as they were; the database put back, the next sync finds
 * nothing changed. A link to a database inside the workspace is read as before. On a --data directory
 * and a served instance over HTTP; real syncs, real restores.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedStateDb } from '@/lib/adapters/hermes/test-support';
import { AdapterError } from '@/lib/adapters/shared/errors';
import type { Runtime } from '@/lib/adapters/types';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { startTestServer, type TestServer } from '@/tests/server/harness';
import { httpTarget } from './http-target';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import type { SyncTarget } from './target';
import { treeAndBytes } from './testing/file-tree';
import { makeSandbox, steppingClock } from './testing/workspace';

const AGENT = 'aaaaaaaa-0000-4000-8000-00000000000a';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const onData = (dataDir: string, clock: () => Date): SyncTarget => localTarget(dataDir, clock);
const TARGETS: [string, (dataDir: string, clock: () => Date) => SyncTarget][] = [
  ['a --data directory', onData],
  ['a served instance', () => httpTarget({ baseUrl: server.url, apiKey: server.keyA })],
];

/** A real first sync of `runtime` (two sessions, or two memories of agent scout), then `prepare` changes the workspace. */
async function synced(runtime: Runtime, makeTarget: (dataDir: string, clock: () => Date) => SyncTarget, dbRel: string) {
  const sb = await makeSandbox('lineage-sync-dblink-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = makeTarget(sb.dataDir, clock);
  if (runtime === 'hermes') {
    await seedStateDb(sb.workspace, [
      { id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000 },
      { id: 'sess-2', source: 'cli', title: 'Incident', started_at: 1780000100 },
    ], [{ session_id: 'sess-1', role: 'user', content: 'Review the deploy', timestamp: 1780000010 }]);
  } else {
    await seedBrainDb({ workspace: sb.workspace, rel: dbRel, agents: [{ id: AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
      { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: AGENT, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
      { id: '10000000-0000-4000-8000-000000000002', key: 'region', content: 'Deploys go to eu-west', agent_id: AGENT, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
    ] });
  }
  fs.writeFileSync(path.join(sb.workspace, 'SOUL.md'), 'Calm.\n');
  const runtimeAgent = runtime === 'zeroclaw' ? 'scout' : undefined;
  const sync = () => syncWorkspace({ runtime, workspace: sb.workspace, runtimeAgent, target, alfHome: sb.alfHome, clock });
  const first = await sync();
  expect(first).toMatchObject({ sequence: 0, delta: false });
  const agentId = first.agent.alf_agent_id;
  const outside = path.join(sb.root, 'elsewhere');
  fs.mkdirSync(outside);
  const restore = () => restoreAgent({ runtime, agentId, target, alfHome: sb.alfHome, workspace: sb.workspace, runtimeAgent, clock, replace: true });
  const head = async () => {
    const entry = await target.latestEntry(agentId);
    return entry && { sequence: entry.sequence, kind: entry.kind };
  };
  return { sb, ws: sb.workspace, outside, sync, restore, head };
}

/** `run` refused as `workspace_file_invalid` with `message`, and nothing under `dirs` changed, the ledger's head as it was. */
async function refusedUnchanged(run: () => Promise<unknown>, dirs: string[], head: () => Promise<unknown>, message: string): Promise<AdapterError> {
  const before = dirs.map(treeAndBytes);
  const headBefore = await head();
  const error = await run().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AdapterError);
  expect(error).toMatchObject({ code: 'workspace_file_invalid', message });
  expect(dirs.map(treeAndBytes)).toEqual(before);
  expect(await head()).toEqual(headBefore);
  return error as AdapterError;
}

const real = (p: string) => fs.realpathSync(p);

describe.each(TARGETS)('a database behind a link out of the workspace or to nothing: %s', (_name, makeTarget) => {
  it('Hermes state.db -> the database moved outside: the sync is refused (it deleted every session), the restore too; put back, nothing changed', async () => {
    const { sb, ws, outside, sync, restore, head } = await synced('hermes', makeTarget, 'state.db');
    fs.renameSync(path.join(ws, 'state.db'), path.join(outside, 'state.db'));
    fs.symlinkSync(path.join(outside, 'state.db'), path.join(ws, 'state.db'));
    const error = await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database state.db leads to ${path.join(real(outside), 'state.db')}, outside the workspace, through the symbolic link state.db, and a sync follows links only inside it; nothing was read or sent`);
    expect(error.hint).toBe(`move the database into the workspace (replace the link ${path.join(ws, 'state.db')} with the file itself, or with a link to it inside the workspace), then sync again`);
    expect(await head()).toEqual({ sequence: 0, kind: 'snapshot' });
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head,
      `cannot restore into ${ws}: state.db is a symbolic link to ${path.join(real(outside), 'state.db')}, outside the workspace, and a restore writes only inside it`);
    // The database moved back in: every session is still there, nothing to send.
    fs.rmSync(path.join(ws, 'state.db'));
    fs.renameSync(path.join(outside, 'state.db'), path.join(ws, 'state.db'));
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 0 });
  });

  it('Hermes state.db -> nothing (after a sync that had it): refused, not taken for no database', async () => {
    const { sb, ws, outside, sync, restore, head } = await synced('hermes', makeTarget, 'state.db');
    fs.renameSync(path.join(ws, 'state.db'), path.join(outside, 'state.db'));
    fs.symlinkSync(path.join(outside, 'gone', 'state.db'), path.join(ws, 'state.db'));
    const error = await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database state.db is a symbolic link to ${path.join(outside, 'gone', 'state.db')}, which does not exist; it is not taken for no database (its records would be deleted); nothing was read or sent`);
    expect(error.hint).toBe(`put the database back where the link leads, or replace the link ${path.join(ws, 'state.db')} with the database file, then sync again`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: state.db is a symbolic link to a path that does not exist`);
  });

  it.each([
    ['data/memory/brain.db -> the database moved outside', 'data/memory/brain.db', 'data/memory/brain.db', 'data/memory/brain.db'],
    ['memory/brain.db -> the database moved outside', 'memory/brain.db', 'memory/brain.db', 'memory/brain.db'],
    ['data -> a directory outside holding memory/brain.db', 'data/memory/brain.db', 'data', 'data'],
  ])('ZeroClaw %s: the sync is refused (it read the database outside), as the restore is', async (_case, dbRel, move, linkRel) => {
    const { sb, ws, outside, sync, restore, head } = await synced('zeroclaw', makeTarget, dbRel);
    const away = path.join(outside, path.basename(move));
    fs.renameSync(path.join(ws, ...move.split('/')), away);
    fs.symlinkSync(away, path.join(ws, ...move.split('/')));
    // Where the database is, every link on its way followed.
    const leads = path.join(real(outside), path.basename(move), path.relative(move, dbRel));
    const error = await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database ${dbRel} leads to ${leads}, outside the workspace, through the symbolic link ${linkRel}, and a sync follows links only inside it; nothing was read or sent`);
    expect(error.hint).toContain(`replace the link ${path.join(ws, ...linkRel.split('/'))} with the file itself`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head,
      `cannot restore into ${ws}: ${linkRel} is a symbolic link to ${leads}, outside the workspace, and a restore writes only inside it`);
    fs.rmSync(path.join(ws, ...move.split('/')));
    fs.renameSync(away, path.join(ws, ...move.split('/')));
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 0 });
  });

  it.each([
    ['alone', false],
    ['beside an older memory/brain.db, which is not taken for it', true],
  ])('ZeroClaw data/memory/brain.db -> nothing, %s: refused naming the link, as the restore is', async (_case, stale) => {
    const { sb, ws, outside, sync, restore, head } = await synced('zeroclaw', makeTarget, 'data/memory/brain.db');
    const db = path.join(ws, 'data', 'memory', 'brain.db');
    if (stale) {
      fs.mkdirSync(path.join(ws, 'memory'));
      fs.copyFileSync(db, path.join(ws, 'memory', 'brain.db'));
    }
    fs.rmSync(db);
    fs.symlinkSync(path.join(outside, 'gone.db'), db);
    await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database data/memory/brain.db is a symbolic link to ${path.join(outside, 'gone.db')}, which does not exist; it is not taken for no database (its records would be deleted); nothing was read or sent`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: data/memory/brain.db is a symbolic link to a path that does not exist`);
  });

  it('ZeroClaw data -> nothing (a directory on the way), beside an older memory/brain.db: refused naming the link, the older one not read', async () => {
    const { sb, ws, outside, sync, restore, head } = await synced('zeroclaw', makeTarget, 'data/memory/brain.db');
    fs.mkdirSync(path.join(ws, 'memory'));
    fs.copyFileSync(path.join(ws, 'data', 'memory', 'brain.db'), path.join(ws, 'memory', 'brain.db'));
    fs.renameSync(path.join(ws, 'data'), path.join(outside, 'data'));
    fs.symlinkSync(path.join(outside, 'gone'), path.join(ws, 'data'));
    await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database data/memory/brain.db is behind the symbolic link data to ${path.join(outside, 'gone')}, which does not exist; neither is it taken for no database nor is another database of the workspace taken for it (its records would be deleted or reverted); nothing was read or sent`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: data is a symbolic link to a path that does not exist`);
  });
});

describe('a Hermes state.db that is no file', () => {
  it.each([
    ['a directory', false],
    ['a link to a directory inside the home', true],
  ])('%s: the sync is refused (it deleted every session), as the restore is', async (_case, throughLink) => {
    const { sb, ws, outside, sync, restore, head } = await synced('hermes', onData, 'state.db');
    fs.renameSync(path.join(ws, 'state.db'), path.join(outside, 'state.db'));
    if (throughLink) {
      fs.mkdirSync(path.join(ws, 'stores', 'hermes.db'), { recursive: true });
      fs.symlinkSync('stores/hermes.db', path.join(ws, 'state.db'));
    } else {
      fs.mkdirSync(path.join(ws, 'state.db'));
    }
    await refusedUnchanged(sync, [ws, outside, sb.alfHome], head,
      `cannot sync ${ws}: its database state.db is a directory, not Hermes' SQLite file; it is not taken for no database (its sessions would be deleted); nothing was read or sent`);
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head, `cannot restore into ${ws}: state.db is a directory there, where the restore writes a file`);
  });
});

describe('a first sync of a Hermes home whose state.db leads out of it', () => {
  it('is refused before the agent id is minted: nothing written in the home', async () => {
    const sb = await makeSandbox('lineage-sync-dblink-first-');
    cleanups.push(sb.cleanup);
    const outside = path.join(sb.root, 'elsewhere');
    await seedStateDb(outside, [{ id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000 }], []);
    fs.writeFileSync(path.join(sb.workspace, 'SOUL.md'), 'Calm.\n');
    fs.symlinkSync(path.join(outside, 'state.db'), path.join(sb.workspace, 'state.db'));
    const clock = steppingClock();
    const before = [sb.workspace, outside].map(treeAndBytes);
    const error = await syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target: onData(sb.dataDir, clock), alfHome: sb.alfHome, clock }).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ code: 'workspace_file_invalid', message: expect.stringContaining(`its database state.db leads to ${path.join(real(outside), 'state.db')}, outside the workspace`) });
    expect([sb.workspace, outside].map(treeAndBytes)).toEqual(before);
    expect(fs.existsSync(path.join(sb.workspace, '.alf-agent-id'))).toBe(false);
  });
});

describe('a database behind a link inside the workspace: read as before', () => {
  it('Hermes state.db -> stores/hermes.sqlite: every session still there, nothing to send', async () => {
    const { ws, sync } = await synced('hermes', onData, 'state.db');
    fs.mkdirSync(path.join(ws, 'stores'));
    fs.renameSync(path.join(ws, 'state.db'), path.join(ws, 'stores', 'hermes.sqlite'));
    fs.symlinkSync('stores/hermes.sqlite', path.join(ws, 'state.db'));
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 0 });
  });

  it('ZeroClaw data/memory/brain.db -> ../../brain.db: its memories read, nothing to send', async () => {
    const { ws, sync } = await synced('zeroclaw', onData, 'data/memory/brain.db');
    fs.renameSync(path.join(ws, 'data', 'memory', 'brain.db'), path.join(ws, 'brain.db'));
    fs.symlinkSync('../../brain.db', path.join(ws, 'data', 'memory', 'brain.db'));
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 0 });
  });
});

describe('a Hermes restore from a snapshot without sessions into a home whose state.db is a directory', () => {
  /** A real sync of a home with curated memory and no state.db (a snapshot without sessions), then `state.db` made a directory in `live`. */
  async function sessionless(live: 'the synced home' | 'a new home') {
    const sb = await makeSandbox('lineage-sync-dbdir-nosessions-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = onData(sb.dataDir, clock);
    fs.mkdirSync(path.join(sb.workspace, 'memories'));
    fs.writeFileSync(path.join(sb.workspace, 'memories', 'MEMORY.md'), 'Always run tests first.\n');
    fs.writeFileSync(path.join(sb.workspace, 'SOUL.md'), 'Calm.\n');
    const first = await syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    expect(first).toMatchObject({ sequence: 0, delta: false });
    const home = live === 'the synced home' ? sb.workspace : path.join(sb.root, 'live');
    fs.mkdirSync(path.join(home, 'state.db'), { recursive: true });
    fs.writeFileSync(path.join(home, 'state.db', 'kept.txt'), 'the user\'s\n');
    const restore = (replace: boolean) => restoreAgent({ runtime: 'hermes', agentId: first.agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: home, clock, replace });
    const head = async () => (await target.latestEntry(first.agent.alf_agent_id))?.sequence;
    return { sb, home, restore, head };
  }

  it.each([
    ['the synced home', true],
    ['the synced home', false],
    ['a new home', true],
    ['a new home', false],
  ] as const)('into %s (--replace %s): refused naming state.db, nothing written', async (live, replace) => {
    const { sb, home, restore, head } = await sessionless(live);
    // The client state as it was (the agent's lock file, made for the restore, aside).
    await refusedUnchanged(() => restore(replace), [home, path.join(sb.alfHome, 'state')], head,
      `cannot restore into ${home}: state.db is a directory there, where the restore reads the runtime's database (to tell whether memory is there)`);
    // Moved out of the way, as the hint says: the restore goes on.
    fs.rmSync(path.join(home, 'state.db'), { recursive: true });
    expect(await restore(true)).toMatchObject({ ok: true, action: live === 'a new home' ? 'initialize' : 'none' });
  });
});

describe('a database behind a loop of symbolic links', () => {
  it.each([
    ['Hermes state.db -> state.db', 'hermes', 'state.db', 'state.db', 'state.db',
      (ws: string) => `cannot sync ${ws}: its database state.db is a symbolic link to state.db, which leads back to itself (a loop of symbolic links); it is not taken for no database (its records would be deleted); nothing was read or sent`,
      (ws: string) => `replace the link ${path.join(ws, 'state.db')} with the database file, then sync again`],
    ['ZeroClaw data -> data, beside an older memory/brain.db', 'zeroclaw', 'data/memory/brain.db', 'data', 'data',
      (ws: string) => `cannot sync ${ws}: its database data/memory/brain.db is behind the symbolic link data to data, which leads back to itself (a loop of symbolic links); neither is it taken for no database nor is another database of the workspace taken for it (its records would be deleted or reverted); nothing was read or sent`,
      (ws: string) => `replace the link ${path.join(ws, 'data')} with the directory itself, then sync again`],
    ['ZeroClaw data/memory/brain.db -> a -> b -> a', 'zeroclaw', 'data/memory/brain.db', 'data/memory/brain.db', 'a',
      (ws: string) => `cannot sync ${ws}: its database data/memory/brain.db is a symbolic link to a, which leads back to itself (a loop of symbolic links); it is not taken for no database (its records would be deleted); nothing was read or sent`,
      (ws: string) => `replace the link ${path.join(ws, 'data', 'memory', 'brain.db')} with the database file, then sync again`],
  ] as const)('%s: the sync and the restore are refused saying it is a loop, not a path that does not exist', async (_case, runtime, dbRel, linkRel, to, message, hint) => {
    const { sb, ws, outside, sync, restore, head } = await synced(runtime, onData, dbRel);
    if (runtime === 'zeroclaw') {
      fs.mkdirSync(path.join(ws, 'memory'));
      fs.copyFileSync(path.join(ws, 'data', 'memory', 'brain.db'), path.join(ws, 'memory', 'brain.db'));
    }
    const moved = path.join(outside, 'moved');
    fs.renameSync(path.join(ws, ...linkRel.split('/')), moved);
    fs.symlinkSync(to, path.join(ws, ...linkRel.split('/')));
    if (to === 'a') {
      const dir = path.dirname(path.join(ws, ...linkRel.split('/')));
      fs.symlinkSync('b', path.join(dir, 'a'));
      fs.symlinkSync('a', path.join(dir, 'b'));
    }
    const error = await refusedUnchanged(sync, [ws, outside, sb.alfHome], head, message(ws));
    expect(error.hint).toBe(hint(ws));
    await refusedUnchanged(restore, [ws, outside, sb.alfHome], head,
      `cannot restore into ${ws}: ${linkRel} is a symbolic link that leads back to itself (a loop of symbolic links)`);
  });
});

describe.skipIf(process.getuid?.() === 0)('a Hermes state.db that cannot be read (chmod 000; permissions stop no read of root\'s)', () => {
  it('the sync and the restore are refused naming it: not an internal error, not taken for no sessions', async () => {
    const { sb, outside, ws, sync, restore, head } = await synced('hermes', onData, 'state.db');
    fs.chmodSync(path.join(ws, 'state.db'), 0o000);
    try {
      const error = await refusedUnchanged(sync, [outside, sb.alfHome], head, `cannot sync ${ws}: its database state.db cannot be read (EACCES); nothing was read or sent`);
      expect(error.hint).toBe(`make ${path.join(ws, 'state.db')} readable (chmod u+r), then sync again`);
      await refusedUnchanged(restore, [outside, sb.alfHome], head, `cannot restore into ${ws}: state.db, the database the restore opens, cannot be read (EACCES)`);
    } finally {
      fs.chmodSync(path.join(ws, 'state.db'), 0o644);
    }
    expect(await sync()).toMatchObject({ no_changes: true, sequence: 0 });
  });
});
