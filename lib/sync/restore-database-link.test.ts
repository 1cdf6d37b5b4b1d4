/**
 * The database a restore into a live workspace opens — Hermes' `state.db`, ZeroClaw's `brain.db`
 * where it is found — being itself a symbolic link: to a secret or a control file of the workspace
 * (`state.db -> .env`, `memory/brain.db -> ../config.toml`), out of the workspace, or to nothing, the
 * restore is refused before the database is read (`workspace_file_invalid`, the link named), nothing
 * written, the file it leads to with its bytes. Before, the restore opened the secret as SQLite (a
 * `bad_store` "file is not a database", or, for an empty one, SQLite's own error of a table not there).
 * A link to another SQLite database inside the workspace is opened and written through, as a link to a
 * plain file is. And a sync of a workspace whose database is such a link neither reads nor carries the
 * secret. Real syncs, real restores.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { AdapterError } from '@/lib/adapters/shared/errors';
import { zeroclawAlfAgentId } from '@/lib/adapters/zeroclaw';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { treeAndBytes } from './testing/file-tree';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const SECRET = 'sk-secret-7373';
const AGENT = 'aaaaaaaa-0000-4000-8000-00000000000a';

const link = (live: string, rel: string, to: string) => {
  fs.mkdirSync(path.dirname(path.join(live, ...rel.split('/'))), { recursive: true });
  fs.symlinkSync(to, path.join(live, ...rel.split('/')));
};

/** A real sync of `runtime` from a sandbox workspace (the database in `ws`), then a fresh `live` that `prepare` fills. */
async function syncedThenLive(runtime: Runtime, prepare: (live: string, ws: string, outside: string) => void) {
  const sb = await makeSandbox('lineage-restore-dblink-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  if (runtime === 'hermes') await seedStateDb(sb.workspace, [{ id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000 }], [{ session_id: 'sess-1', role: 'user', content: 'Review the deploy', timestamp: 1780000010 }]);
  if (runtime === 'zeroclaw') {
    await seedBrainDb({ workspace: sb.workspace, rel: 'data/memory/brain.db', agents: [{ id: AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
      { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: AGENT, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
    ] });
  }
  await writeFiles(sb.workspace, { 'SOUL.md': 'Calm.\n' });
  const runtimeAgent = runtime === 'zeroclaw' ? 'scout' : undefined;
  const { agent } = await syncWorkspace({ runtime, workspace: sb.workspace, runtimeAgent, target, alfHome: sb.alfHome, clock });
  const live = path.join(sb.root, 'live');
  const outside = path.join(sb.root, 'outside');
  fs.mkdirSync(live);
  fs.mkdirSync(outside);
  prepare(live, sb.workspace, outside);
  const restore = (replace = true) => restoreAgent({ runtime, agentId: agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: live, runtimeAgent, clock, replace });
  const sync = () => syncWorkspace({ runtime, workspace: live, runtimeAgent, target, alfHome: sb.alfHome, clock });
  return { live, outside, restore, sync };
}

/** The restore refused with `message` (workspace_file_invalid), nothing under `dirs` changed. */
async function refused(restore: () => Promise<unknown>, dirs: string[], message: string): Promise<void> {
  const before = dirs.map(treeAndBytes);
  const error = await restore().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AdapterError);
  expect(error).toMatchObject({ code: 'workspace_file_invalid', message });
  expect((error as AdapterError).hint).toContain('(nothing was written)');
  expect(dirs.map(treeAndBytes)).toEqual(before);
}

const throughLink = (live: string, rel: string, lands: string) =>
  `cannot restore into ${live}: ${rel} leads to ${lands} through the symbolic link ${rel}, and a restore never writes a file a sync never carries under another name (a secret, a database or a control file)`;

const sessionTitles = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT title FROM sessions ORDER BY id').all();
  } finally {
    db.close();
  }
};

const memoryContents = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT content FROM memories ORDER BY id').all();
  } finally {
    db.close();
  }
};

describe('Hermes: state.db a link', () => {
  it.each([
    ['state.db -> .env', '.env', `OPENAI_API_KEY=${SECRET}\n`],
    ['state.db -> .env (an empty one, which SQLite would take for an empty database)', '.env', ''],
    ['state.db -> config.yaml', 'config.yaml', `model: m1\napi_key: ${SECRET}\n`],
    ['state.db -> auth.json', 'auth.json', `{"access_token":"${SECRET}"}\n`],
  ])('%s: refused, nothing written, the secret as it was', async (_name, to, content) => {
    const { live, restore } = await syncedThenLive('hermes', (live) => {
      fs.writeFileSync(path.join(live, to), content);
      link(live, 'state.db', to);
    });
    await refused(restore, [live], throughLink(live, 'state.db', to));
    expect(fs.readFileSync(path.join(live, to), 'utf8')).toBe(content);
    // Without --replace too: the decision would read it.
    await refused(() => restore(false), [live], throughLink(live, 'state.db', to));
  });

  it('state.db -> a file outside the workspace: refused, the file outside as it was', async () => {
    const { live, outside, restore } = await syncedThenLive('hermes', (live, _ws, outside) => {
      fs.writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`);
      link(live, 'state.db', path.join(outside, 'secret.txt'));
    });
    await refused(restore, [live, outside], `cannot restore into ${live}: state.db is a symbolic link to ${path.join(fs.realpathSync(outside), 'secret.txt')}, outside the workspace, and a restore writes only inside it`);
  });

  it('state.db -> another SQLite database inside the workspace: the sessions are written into it, the link kept', async () => {
    const { live, restore } = await syncedThenLive('hermes', (live, ws) => {
      fs.mkdirSync(path.join(live, 'stores'));
      fs.copyFileSync(path.join(ws, 'state.db'), path.join(live, 'stores', 'hermes.sqlite'));
      new Database(path.join(live, 'stores', 'hermes.sqlite')).exec("UPDATE sessions SET title = 'edited here'").close();
      link(live, 'state.db', 'stores/hermes.sqlite');
    });
    expect(await restore()).toMatchObject({ applied: true });
    expect(sessionTitles(path.join(live, 'stores', 'hermes.sqlite'))).toEqual([{ title: 'Deploy review' }]);
    expect(fs.readlinkSync(path.join(live, 'state.db'))).toBe('stores/hermes.sqlite');
  });

  it('a sync of a home whose state.db -> .env neither reads nor carries the secret', async () => {
    const { live, sync } = await syncedThenLive('hermes', (live) => {
      fs.writeFileSync(path.join(live, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
      fs.mkdirSync(path.join(live, 'memories'));
      fs.writeFileSync(path.join(live, 'memories', 'MEMORY.md'), 'Always run tests first.\n');
      link(live, 'state.db', '.env');
    });
    const error = await sync().then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({
      code: 'workspace_file_invalid',
      message: `cannot sync ${live}: its database state.db leads to .env through the symbolic link state.db, a file a sync never reads or carries (a secret or a control file); nothing was read or sent`,
    });
  });
});

describe('ZeroClaw: brain.db a link', () => {
  it.each([
    ['memory/brain.db -> ../config.toml', 'memory/brain.db', '../config.toml', 'config.toml'],
    ['data/memory/brain.db -> ../../.secret_key', 'data/memory/brain.db', '../../.secret_key', '.secret_key'],
    ['memory/brain.db -> ../.env (an empty one)', 'memory/brain.db', '../.env', '.env'],
  ])('%s: refused, nothing written, the secret as it was', async (_name, rel, to, lands) => {
    const content = lands === '.env' ? '' : `api_key = "${SECRET}"\n`;
    const { live, restore } = await syncedThenLive('zeroclaw', (live) => {
      fs.writeFileSync(path.join(live, lands), content);
      link(live, rel, to);
    });
    await refused(restore, [live], throughLink(live, rel, lands));
    expect(fs.readFileSync(path.join(live, lands), 'utf8')).toBe(content);
    await refused(() => restore(false), [live], throughLink(live, rel, lands));
    // `lineage restore -w` without --agent reads the agent's id from it first: refused the same way.
    await refused(() => zeroclawAlfAgentId(live, 'scout'), [live], throughLink(live, rel, lands));
  });

  it('data/memory/brain.db -> a database outside the workspace: refused, the database outside as it was', async () => {
    const { live, outside, restore } = await syncedThenLive('zeroclaw', (live, ws, outside) => {
      fs.copyFileSync(path.join(ws, 'data', 'memory', 'brain.db'), path.join(outside, 'brain.db'));
      new Database(path.join(outside, 'brain.db')).exec("UPDATE memories SET content = 'edited outside'").close();
      link(live, 'data/memory/brain.db', path.join(outside, 'brain.db'));
    });
    await refused(restore, [live, outside], `cannot restore into ${live}: data/memory/brain.db is a symbolic link to ${path.join(fs.realpathSync(outside), 'brain.db')}, outside the workspace, and a restore writes only inside it`);
    expect(memoryContents(path.join(outside, 'brain.db'))).toEqual([{ content: 'edited outside' }]);
  });

  it('memory/brain.db -> ../brain.db, another SQLite database inside: the agent\'s rows are written into it, the link kept', async () => {
    const { live, restore } = await syncedThenLive('zeroclaw', (live, ws) => {
      fs.copyFileSync(path.join(ws, 'data', 'memory', 'brain.db'), path.join(live, 'brain.db'));
      new Database(path.join(live, 'brain.db')).exec("UPDATE memories SET content = 'edited here'").close();
      link(live, 'memory/brain.db', '../brain.db');
    });
    expect(await restore()).toMatchObject({ applied: true });
    expect(memoryContents(path.join(live, 'brain.db'))).toEqual([{ content: 'The gateway is 10.20.0.5' }]);
    expect(fs.readlinkSync(path.join(live, 'memory', 'brain.db'))).toBe('../brain.db');
  });

  it('a sync of a workspace whose memory/brain.db -> ../config.toml neither reads nor carries the secret', async () => {
    const { live, sync } = await syncedThenLive('zeroclaw', (live) => {
      fs.writeFileSync(path.join(live, 'config.toml'), `api_key = "${SECRET}"\n`);
      link(live, 'memory/brain.db', '../config.toml');
    });
    const error = await sync().then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({
      code: 'workspace_file_invalid',
      message: `cannot sync ${live}: its database memory/brain.db leads to config.toml through the symbolic link memory/brain.db, a file a sync never reads or carries (a secret or a control file); nothing was read or sent`,
    });
  });
});
