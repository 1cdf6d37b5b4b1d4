/**
 * WAL checkpoints off the event loop. By default SQLite checkpoints inside the commit that pushes
 * the WAL past 1000 pages: that commit then copies pages into the database and fsyncs it, on the
 * server's only JavaScript thread, and every upload queued behind it waits. A long-running server
 * instead turns automatic checkpoints off on its connection and lets a worker thread, with its own
 * connection, run PASSIVE checkpoints every few hundred milliseconds. PASSIVE never blocks readers
 * or writers; once a checkpoint has caught up, the next write restarts the WAL from its beginning, so
 * the file stays bounded by what arrives between two checkpoints.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LineageDb } from '@/db/client';

/** What one checkpoint did (SQLite's `wal_checkpoint` row). */
export interface CheckpointResult {
  /** 1 when a writer or reader kept it from finishing. */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames copied back into the database so far. */
  checkpointed: number;
}

export interface Checkpointer {
  /** Runs a checkpoint now (in the worker) and returns its result. */
  checkpoint(): Promise<CheckpointResult>;
  /** Stops the worker and gives the connection back its automatic checkpoints. */
  stop(): Promise<void>;
}

export const CHECKPOINT_INTERVAL_MS = 250;

// The worker is plain CommonJS (no TypeScript loader needed in the thread); it loads the same
// better-sqlite3 build as the main thread, by absolute path.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
const timer = setInterval(() => {
  try { checkpoint(); } catch (error) { parentPort.postMessage({ error: String(error) }); }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
    return;
  }
  try { parentPort.postMessage({ id: message.id, result: checkpoint() }); }
  catch (error) { parentPort.postMessage({ id: message.id, error: String(error) }); }
});
`;

/** Starts the checkpoint worker for `db` (a WAL database) and turns off its automatic checkpoints. */
export function startCheckpointer(db: LineageDb, options: { intervalMs?: number; log?: (line: string) => void } = {}): Checkpointer {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, file: path.join(db.dataDir, 'lineage.db'), intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS },
  });
  worker.unref();
  db.sqlite.pragma('wal_autocheckpoint = 0');
  const pending = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let stopped = false;
  const restore = () => {
    if (db.sqlite.open) db.sqlite.pragma('wal_autocheckpoint = 1000');
  };
  worker.on('message', (message: { id?: number; result?: CheckpointResult; error?: string }) => {
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (waiter) {
      pending.delete(message.id!);
      if (message.error !== undefined) waiter.reject(new Error(message.error));
      else waiter.resolve(message.result!);
    } else if (message.error !== undefined) log(`wal checkpoint failed: ${message.error}`);
  });
  worker.on('error', (error) => {
    // Without the worker, fall back to SQLite's own checkpoints rather than let the WAL grow.
    log(`wal checkpoint worker failed (automatic checkpoints restored): ${String(error)}`);
    restore();
  });
  worker.on('exit', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('the checkpoint worker exited'));
    pending.clear();
    if (!stopped) restore();
  });
  return {
    checkpoint: () => new Promise((resolve, reject) => {
      if (stopped) return reject(new Error('the checkpointer is stopped'));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id });
    }),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
      restore();
    },
  };
}
