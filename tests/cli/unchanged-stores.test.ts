import fs from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';
import { lockFilesUnwritten, opensForWriting, tracedCli } from './traced-cli';

const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The two SQLite-store runtimes: a seeded workspace, its database, and an edit of one record's content (same length). */
const STORES = {
  zeroclaw: {
    db: 'memory/brain.db',
    extra: ['--runtime-agent', 'scout'],
    async seed(workspace: string) {
      await seedBrainDb({ workspace, agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
        { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
        { id: '10000000-0000-4000-8000-000000000002', key: 'editor', content: 'Prefers vim keybindings', agent_id: A, created_at: '2026-05-02T10:00:00Z', updated_at: '2026-05-02T10:00:00Z' },
      ] });
    },
    edit: (db: Database.Database, n: number) => db.prepare('UPDATE memories SET content = ? WHERE key = ?').run(`The gateway is 10.20.0.${n}`, 'gateway'),
  },
  hermes: {
    db: 'state.db',
    extra: [] as string[],
    async seed(workspace: string) {
      await seedStateDb(workspace, [{ id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000, ended_at: 1780000600 }], [
        { session_id: 'sess-1', role: 'user', content: 'Review the deploy 5', timestamp: 1780000010 },
      ]);
      await writeFiles(workspace, { 'memories/MEMORY.md': 'Always run tests first.\n', 'memories/USER.md': 'Name: Dana\n' });
    },
    edit: (db: Database.Database, n: number) => db.prepare('UPDATE messages SET content = ? WHERE session_id = ?').run(`Review the deploy ${n}`, 'sess-1'),
  },
} as const;

describe.each(Object.keys(STORES) as (keyof typeof STORES)[])('%s: an unchanged SQLite store is not opened', (runtime) => {
  const store = STORES[runtime];

  it('an idle sync opens neither the database nor any workspace file and writes nothing; an edit is seen, racy or not', async () => {
    const sb = await makeSandbox(`lineage-store-${runtime}-`);
    try {
      await store.seed(sb.workspace);
      const dbFile = path.join(sb.workspace, store.db);
      const env = { ALF_HOME: sb.alfHome };
      const args = ['sync', '-r', runtime, '-w', sb.workspace, ...store.extra, '--data', sb.dataDir];
      // Files changed less than a second before their stat data were taken are racy (never
      // trusted): the store is left alone for longer than that first.
      await sleep(1100);
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 0 });
      await sleep(1100);
      // The first sync wrote the agent's id into the workspace: this one exports again (and finds
      // nothing new) and records the workspace as it is.
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 0, no_changes: true });

      const idle = await tracedCli(args, env, path.join(sb.root, 'idle.trace'));
      expect(idle.json).toMatchObject({ ok: true, sequence: 0, no_changes: true });
      const inWorkspace = idle.opens.filter((o) => o.file.startsWith(sb.workspace + path.sep));
      expect(inWorkspace.filter((o) => o.file.startsWith(dbFile))).toEqual([]);
      // No file of the workspace at all (its directories are listed, and the marker read), only their stat data.
      const files = inWorkspace.filter((o) => !o.flags.includes('O_DIRECTORY')).map((o) => path.relative(sb.workspace, o.file));
      expect(files.filter((rel) => rel !== '.alf-synced.json')).toEqual([]);
      expect(idle.opens.filter((o) => o.file.endsWith('-snapshot.alf'))).toEqual([]);
      // (The agent's lock is opened read-write to be held: the file stays empty.)
      expect(opensForWriting(idle.opens, [sb.workspace, sb.alfHome, sb.dataDir], sb.alfHome)).toEqual([]);
      expect((await lockFilesUnwritten(sb.alfHome)).map((f) => f.size)).toEqual([0]);

      // An edit of the same size, right after the last sync (within its second), its mtime put back:
      // its ctime (and the racy rule) still show it.
      const { mtime } = await fs.stat(dbFile);
      const db = new Database(dbFile);
      store.edit(db, 7);
      db.close();
      await fs.utimes(dbFile, mtime, mtime);
      const edited = await tracedCli(args, env, path.join(sb.root, 'edit.trace'));
      expect(edited.json).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });
      expect(edited.opens.some((o) => o.file === dbFile)).toBe(true);

      // A database whose mtime was set ahead of the clock: racy by its ctime only (which the kernel
      // sets at every change), so an edit that keeps its size and puts the same mtime back is seen.
      await sleep(1100);
      const ahead = new Date(Date.now() + 3_600_000);
      await fs.utimes(dbFile, ahead, ahead);
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 1, no_changes: true });
      await sleep(1100);
      const again = new Database(dbFile);
      store.edit(again, 8);
      again.close();
      await fs.utimes(dbFile, ahead, ahead);
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 2, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });

      // The rule itself: stat data whose ctime is not older than the cache (here: the cache's mtime
      // put an hour back) are not trusted: the idle sync opens the database again.
      const stateDir = path.join(sb.alfHome, '.alf', 'state');
      const caches = (await fs.readdir(stateDir)).filter((name) => name.startsWith('store-') && name.endsWith('.stat'));
      expect(caches).toHaveLength(1);
      const back = new Date(Date.now() - 3_600_000);
      await fs.utimes(path.join(stateDir, caches[0]!), back, back);
      const racy = await tracedCli(args, env, path.join(sb.root, 'racy.trace'));
      expect(racy.json).toMatchObject({ ok: true, sequence: 2, no_changes: true });
      expect(racy.opens.some((o) => o.file === dbFile)).toBe(true);
    } finally {
      await sb.cleanup();
    }
  }, 180_000);
});
