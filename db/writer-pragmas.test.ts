/**
 * A WAL that a long `lineage backup` grew is cut back once the server has caught up (writer-pragmas.ts
 * `journal_size_limit`). The real backup process, stopped while it holds its snapshot's read
 * transaction; the data directory's own connection writing past the limit meanwhile; the server's
 * checkpoint thread; real SQLite files.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { startCheckpointer } from '@/lib/ledger/checkpointer';
import { isStopped, waitUntil } from '@/lib/ledger/testing/packer-process';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { openWorkerLedger } from '@/lib/storage/ingest-worker';
import { WAL_SIZE_LIMIT_BYTES } from './writer-pragmas';

const walSize = (dir: string) => fs.statSync(path.join(dir, 'lineage.db-wal')).size;

it('both writers of a data directory (every command\'s connection, the ingest thread\'s) cap the WAL they restart', () => {
  const t = tempLedger();
  try {
    expect(t.ledger.db.sqlite.pragma('journal_size_limit', { simple: true })).toBe(WAL_SIZE_LIMIT_BYTES);
    const worker = openWorkerLedger(t.dir, createRequire(import.meta.url).resolve('better-sqlite3'), undefined);
    try {
      expect(worker.db.sqlite.pragma('journal_size_limit', { simple: true })).toBe(WAL_SIZE_LIMIT_BYTES);
      expect(worker.db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      worker.db.sqlite.close();
    }
  } finally {
    t.cleanup();
  }
});

it('the WAL a backup\'s held snapshot let grow past the limit is cut back to it by the first commit after the checkpoint caught up', async () => {
  const t = tempLedger();
  const out = `${t.dir}-backup`;
  try {
    const { sqlite } = t.ledger.db;
    sqlite.exec('CREATE TABLE wal_filler (x BLOB)');
    const bin = path.resolve(__dirname, '../bin/lineage.cjs');
    const backup = spawn(process.execPath, [bin, 'backup', '--data', t.dir, '--out', out], { env: { ...process.env, LINEAGE_BACKUP_STOP_AT: 'snapshot' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    backup.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const closed = new Promise<number | null>((resolve) => backup.on('close', (code) => resolve(code)));
    await waitUntil('the backup stops holding its snapshot', () => isStopped(backup.pid!));
    const checkpointer = startCheckpointer(t.ledger.db, { intervalMs: 3_600_000 });
    try {
      // Commits while the backup's read transaction pins the WAL: no checkpoint can pass it.
      const insert = sqlite.prepare('INSERT INTO wal_filler (x) VALUES (?)');
      for (let i = 0; i < 80; i++) insert.run(Buffer.alloc(1024 * 1024, i));
      const pinned = await checkpointer.checkpoint();
      expect(pinned.checkpointed).toBeLessThan(pinned.log);
      expect(walSize(t.dir)).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
      backup.kill('SIGCONT');
      expect(await closed).toBe(0);
      expect(JSON.parse(stdout.trim())).toMatchObject({ ok: true });
      // The backup is gone: the checkpoint catches up, and the next commit restarts the WAL.
      const caughtUp = await checkpointer.checkpoint();
      expect(caughtUp.checkpointed).toBe(caughtUp.log);
      insert.run(Buffer.from('after'));
      expect(walSize(t.dir)).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
      expect(sqlite.prepare('SELECT count(*) FROM wal_filler').pluck().get()).toBe(81);
    } finally {
      await checkpointer.stop();
    }
  } finally {
    t.cleanup();
    fs.rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
