import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { chmod, readdir } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdapterError } from '@/lib/adapters/shared/errors';
import { COPY_ATTEMPTS, withReadCopy } from './sqlite-io';
import { fileStates, insertSeedRow, listFiles, seedBrainDb, tempDir, type SeedRow } from './test-support';

/**
 * A read-only connection cannot read a WAL database whose directory it cannot write
 * (no `-shm` can be made): its backup fails with SQLITE_READONLY. Root can write any
 * directory, so that failure is injected here to reach the copy fallback on every machine.
 */
const fault = vi.hoisted(() => ({
  readonlyBackupFails: false,
  failures: 0,
  /** Runs after each file the copy fallback copies (a concurrent writer's turn). */
  afterCopy: null as ((source: string) => void) | null,
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const copyFile: typeof actual.copyFile = async (source, destination, mode) => {
    await actual.copyFile(source, destination, mode);
    fault.afterCopy?.(String(source));
  };
  return { ...actual, default: { ...actual, copyFile }, copyFile };
});

vi.mock('better-sqlite3', async (importOriginal) => {
  const Actual = (await importOriginal<{ default: typeof Database }>()).default;
  class FaultyDatabase extends Actual {
    override backup(destination: string, options?: Database.BackupOptions): Promise<Database.BackupMetadata> {
      if (fault.readonlyBackupFails && this.readonly) {
        fault.failures++;
        return Promise.reject(new Actual.SqliteError('attempt to write a readonly database', 'SQLITE_READONLY'));
      }
      return super.backup(destination, options);
    }
  }
  return { default: FaultyDatabase };
});

const A = 'a0000000-0000-4000-8000-00000000000a';

function row(i: number, content: string): SeedRow {
  return { id: `a0000000-3333-4333-8333-${String(i).padStart(12, '0')}`, key: `k${i}`, content, created_at: '2026-01-10T00:00:00Z', updated_at: '2026-01-10T00:00:00Z', agent_id: A };
}

async function workspaceWithDb(): Promise<{ ws: string; dbPath: string }> {
  const ws = await tempDir('zc-copy');
  const dbPath = await seedBrainDb({ workspace: ws, agents: [{ id: A, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [row(0, 'checkpointed')] });
  return { ws, dbPath };
}

const contentsOf = (db: Database.Database): string[] =>
  (db.prepare('SELECT content FROM memories ORDER BY id').all() as { content: string }[]).map((r) => r.content);

/** Runs `read` with TMPDIR pointing at a fresh directory, and returns what is left in it. */
async function withPrivateTmp<T>(read: () => Promise<T>): Promise<{ value: T; leftInTmp: string[] }> {
  const tmp = await tempDir('zc-tmp');
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const value = await read();
    return { value, leftInTmp: await readdir(tmp) };
  } finally {
    process.env.TMPDIR = before;
  }
}

afterEach(() => {
  fault.readonlyBackupFails = false;
  fault.failures = 0;
  fault.afterCopy = null;
});

/** A WAL database with one checkpointed row and one committed only in the WAL, and its writer. */
async function walWorkspace(): Promise<{ ws: string; dbPath: string; writer: Database.Database }> {
  const { ws, dbPath } = await workspaceWithDb();
  const writer = new Database(dbPath);
  writer.pragma('journal_mode = WAL');
  writer.pragma('wal_autocheckpoint = 0');
  insertSeedRow(writer, row(1, 'committed only in the WAL'));
  return { ws, dbPath, writer };
}

/**
 * Another process (the agent) in a rollback-journal write transaction that holds the database's
 * EXCLUSIVE lock, its uncommitted rows already spilled into the db file (a one-page cache). It
 * rolls back and exits when its stdin closes.
 */
async function lockingWriter(dbPath: string): Promise<ChildProcessWithoutNullStreams> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.pragma('cache_size = 1');
    db.exec('BEGIN EXCLUSIVE');
    const add = db.prepare("INSERT INTO memories (id, key, content, created_at, updated_at, agent_id) VALUES (?, ?, ?, '2026-01-10T00:00:00Z', '2026-01-10T00:00:00Z', ?)");
    for (let i = 0; i < 50; i++) add.run('u' + i, 'uk' + i, 'uncommitted ' + 'x'.repeat(2000), process.argv[2]);
    process.stdout.write('locked\\n');
    process.stdin.on('end', () => { db.exec('ROLLBACK'); db.close(); });
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['-e', script, dbPath, A], { cwd: process.cwd() });
  await once(child.stdout, 'data');
  return child;
}

describe('withReadCopy', () => {
  it('says a database another process holds locked for a write is locked, and never copies its torn file', async () => {
    const { ws, dbPath } = await workspaceWithDb();
    const writer = await lockingWriter(dbPath);
    let outcome: { value: unknown; leftInTmp: string[] };
    try {
      outcome = await withPrivateTmp(() => withReadCopy(dbPath, contentsOf).catch((error: unknown) => error));
    } finally {
      writer.stdin.end();
      await once(writer, 'exit');
    }
    expect(outcome.value).toBeInstanceOf(AdapterError);
    expect(outcome.value).toMatchObject({
      code: 'bad_store',
      message: expect.stringMatching(/another process holds it locked for a write/),
      hint: expect.stringMatching(/when the agent has finished writing/),
    });
    expect(outcome.leftInTmp).toEqual([]);
    expect(await listFiles(ws)).toEqual(['memory/brain.db']);
    expect(await withReadCopy(dbPath, contentsOf)).toEqual(['checkpointed']);
  });

  it('falls back to copying the db and -wal files when a read-only connection cannot read it', async () => {
    const { ws, dbPath } = await workspaceWithDb();
    const writer = new Database(dbPath);
    const pending = new Database(dbPath);
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0');
      insertSeedRow(writer, row(1, 'committed only in the WAL'));
      pending.exec('BEGIN IMMEDIATE');
      insertSeedRow(pending, row(2, 'never committed'));
      const liveFiles = ['memory/brain.db', 'memory/brain.db-wal'];
      const filesBefore = await listFiles(ws);
      const statesBefore = await fileStates(ws, liveFiles);
      await new Promise((resolve) => setTimeout(resolve, 20)); // so that a write would move an mtime

      fault.readonlyBackupFails = true;
      const { value, leftInTmp } = await withPrivateTmp(() => withReadCopy(dbPath, contentsOf));
      expect(fault.failures).toBe(1);
      expect(value).toEqual(['checkpointed', 'committed only in the WAL']);
      expect(leftInTmp).toEqual([]);
      expect(await fileStates(ws, liveFiles)).toEqual(statesBefore);
      expect(await listFiles(ws)).toEqual(filesBefore);
      pending.exec('ROLLBACK');
    } finally {
      pending.close();
      writer.close();
    }
  });

  // The real trigger; root ignores directory permissions, so it only runs as another user.
  it.skipIf(process.getuid?.() === 0)('reads a WAL database in a read-only directory without writing there', async () => {
    const { ws, dbPath } = await workspaceWithDb();
    const db = new Database(dbPath);
    db.pragma('journal_mode = WAL');
    db.close(); // a clean close leaves no -wal or -shm: a read-only connection cannot make them here
    const filesBefore = await listFiles(ws);
    await chmod(path.dirname(dbPath), 0o555);
    try {
      const { value, leftInTmp } = await withPrivateTmp(() => withReadCopy(dbPath, contentsOf));
      expect(value).toEqual(['checkpointed']);
      expect(leftInTmp).toEqual([]);
    } finally {
      await chmod(path.dirname(dbPath), 0o755);
    }
    expect(await listFiles(ws)).toEqual(filesBefore);
  });

  it('copies again when a checkpoint lands between the db copy and the -wal copy, never pairing an older db with a newer WAL', async () => {
    const { dbPath, writer } = await walWorkspace();
    try {
      let dbCopies = 0;
      fault.afterCopy = (source) => {
        if (source !== dbPath || ++dbCopies > 1) return;
        // Between the two copies: a commit, then a checkpoint that moves every page into the db
        // and empties the WAL. The db copied before it holds neither WAL row.
        insertSeedRow(writer, row(2, 'written during the copy'));
        writer.pragma('wal_checkpoint(TRUNCATE)');
      };
      fault.readonlyBackupFails = true;
      const { value, leftInTmp } = await withPrivateTmp(() => withReadCopy(dbPath, contentsOf));
      expect(value).toEqual(['checkpointed', 'committed only in the WAL', 'written during the copy']);
      expect(dbCopies).toBe(2);
      expect(leftInTmp).toEqual([]);
    } finally {
      writer.close();
    }
  });

  it('gives up with a clear error, and leaves nothing behind, when the database never stops changing', async () => {
    const { dbPath, writer } = await walWorkspace();
    try {
      let dbCopies = 0;
      let n = 10;
      fault.afterCopy = (source) => {
        if (source !== dbPath) return;
        dbCopies++;
        insertSeedRow(writer, row(n++, 'another write'));
      };
      fault.readonlyBackupFails = true;
      const outcome = await withPrivateTmp(() => withReadCopy(dbPath, contentsOf).catch((error: unknown) => error));
      expect(outcome.value).toBeInstanceOf(AdapterError);
      expect(outcome.value).toMatchObject({ code: 'bad_store', message: expect.stringMatching(/kept changing while it was copied/) });
      expect(dbCopies).toBe(COPY_ATTEMPTS);
      expect(outcome.leftInTmp).toEqual([]);
    } finally {
      writer.close();
    }
  });
});
