/**
 * Large uploads go to the ingest thread (ingest-worker.ts): parsing, checking and indexing a
 * 200,000-record snapshot takes seconds of CPU, which on the event loop held every other request
 * (issue 18 §5). The thread has its own database connection; while it writes, this handle's group
 * commits are held back (they would otherwise wait on SQLite's write lock, blocking the loop). One
 * thread per database handle, started on first use, stopped when idle. If it cannot start, the
 * upload is ingested here as before. The thread also folds the entries a local sync left pending
 * when the serving thread would otherwise fold them itself (`catchUpOffThread`).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '@/lib/package-root';
import { workerScript } from '@/lib/worker-script';
import { ArchiveError } from '@/lib/core/archive/types';
import { LedgerError, type LedgerErrorCode } from '@/lib/ledger/errors';
import { holdCommits } from '@/lib/ledger/group-commit';
import type { IngestResult } from '@/lib/ledger/ingest';
import type { Ledger } from '@/lib/ledger/ledger';
import { ingestDelta, ingestSnapshot } from './embedded-ingest';
import type { IngestAnswer, SerializedError, WorkerJob } from './ingest-worker';

const IDLE_MS = 30_000;
const HERE = path.join(packageRoot(), 'lib', 'storage');

/** The thread's code: ingest-worker.ts and what it imports (the native driver is loaded by absolute path, `workerData.driver`, never bundled). */
const workerSource = workerScript(path.join(HERE, 'ingest-worker.ts'), { external: ['better-sqlite3'] });

interface Thread { worker: Worker; pending: Map<number, { resolve: (r: IngestResult | number) => void; reject: (e: unknown) => void }>; idle: NodeJS.Timeout | null }
const threads = new WeakMap<Ledger['db'], Promise<Thread | null>>();
let nextJob = 0;
let handed = 0;

/** Uploads this process has handed to an ingest thread: where an upload ran, for tests. */
export const uploadsHandedToThreads = (): number => handed;

function revive(e: SerializedError): Error {
  const cause = e.cause ? revive(e.cause) : undefined;
  if (e.name === 'LedgerError' && e.code) return new LedgerError(e.code as LedgerErrorCode, e.message, e.details ?? {}, cause ? { cause } : undefined);
  if (e.name === 'ArchiveError' && e.code) return new ArchiveError(e.code as ArchiveError['code'], e.message);
  return Object.assign(new Error(e.message), e.code ? { code: e.code } : {});
}

function startThread(ledger: Ledger, packing?: 'deferred'): Promise<Thread | null> {
  let started = threads.get(ledger.db);
  if (started) return started;
  // A script at hand starts its thread now, not after the caller's synchronous work: the thread
  // boots on the other core meanwhile (a first sync serializes its records next).
  const source = workerSource();
  started = (typeof source === 'string' ? tryStart(source) : source.then((code) => (code === null ? null : tryStart(code)))).catch(() => null);
  threads.set(ledger.db, started);
  return started;

  async function tryStart(code: string): Promise<Thread> {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(code, { eval: true, execArgv: [], workerData: { lineageIngestWorker: true, dataDir: ledger.db.dataDir, driver, packing } });
    const thread: Thread = { worker, pending: new Map(), idle: null };
    const fail = (error: unknown) => {
      threads.delete(ledger.db);
      for (const waiter of thread.pending.values()) waiter.reject(error);
      thread.pending.clear();
    };
    worker.on('message', (answer: IngestAnswer) => {
      const waiter = thread.pending.get(answer.id);
      if (!waiter) return;
      thread.pending.delete(answer.id);
      if ('result' in answer) waiter.resolve(answer.result);
      else waiter.reject(revive(answer.error));
    });
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the ingest thread exited')));
    // Idle, the thread keeps no process alive (a `lineage sync` exits once done); a job refs it
    // (`run`). After the listeners: a 'message' listener refs the worker's port again.
    worker.unref();
    return thread;
  }
}

function run(ledger: Ledger, thread: Thread, job: WorkerJob): Promise<IngestResult | number> {
  if (thread.idle) clearTimeout(thread.idle);
  return new Promise<IngestResult | number>((resolve, reject) => {
    thread.pending.set(job.id, { resolve, reject });
    thread.worker.ref();
    thread.worker.postMessage(job);
  }).finally(() => {
    if (thread.pending.size > 0) return;
    thread.worker.unref();
    thread.idle = setTimeout(() => {
      threads.delete(ledger.db);
      void thread.worker.terminate();
    }, IDLE_MS);
    thread.idle.unref();
  });
}

/**
 * Starts the ingest thread of `ledger`'s handle (unless it runs), for an upload that will come:
 * its script is built or read and compiled, and its database opened, while the caller goes on.
 */
export function warmIngestThread(ledger: Ledger, blobPacking?: 'deferred'): void {
  void startThread(ledger, blobPacking);
}

/**
 * `ingestSnapshot` / `ingestDelta` on the ingest thread; here when the thread cannot start.
 * `blobPacking: 'deferred'` (a local sync's ledger, `openLedger(dir, { packing })`): the thread's
 * blob store writes every blob whole too, as this handle's would; it is the thread's setting from
 * its start, so one handle always passes the same.
 */
export async function ingestOffThread(params: {
  ledger: Ledger; kind: 'snapshot' | 'delta'; agentId: string; baseSequence?: number; bytes: Uint8Array; now: Date;
  limits?: Record<string, number>; tenantId?: string | null; deferIndexFrom?: number; blobPacking?: 'deferred';
}): Promise<IngestResult> {
  const { ledger, kind, now, blobPacking, ...rest } = params;
  const thread = await startThread(ledger, blobPacking);
  if (!thread) {
    const inline = { ledger, agentId: rest.agentId, bytes: rest.bytes, now, limits: rest.limits, tenantId: rest.tenantId, deferIndexFrom: rest.deferIndexFrom };
    return kind === 'snapshot' ? ingestSnapshot(inline) : ingestDelta({ ...inline, baseSequence: rest.baseSequence! });
  }
  const release = holdCommits(ledger.db.sqlite);
  handed++;
  try {
    return (await run(ledger, thread, { id: nextJob++, kind, now: now.toISOString(), ...rest })) as IngestResult;
  } finally {
    release();
  }
}

/**
 * The index's pending entries (of `agentId`, when given) folded on the ingest thread: how many it
 * folded, or null when the thread cannot start or dies (the caller then folds them itself). What
 * the fold refuses (a damaged blob, the lock held by a rebuild) is thrown as it would be here.
 */
export async function catchUpOffThread(ledger: Ledger, agentId: string | undefined, options: { busyWaitMs?: number; backgroundUntil?: number } = {}): Promise<number | null> {
  const thread = await startThread(ledger);
  if (!thread) return null;
  const release = holdCommits(ledger.db.sqlite);
  try {
    return (await run(ledger, thread, { id: nextJob++, kind: 'catch-up', ...(agentId === undefined ? {} : { agentId }), ...(options.busyWaitMs === undefined ? {} : { busyWaitMs: options.busyWaitMs }), ...(options.backgroundUntil === undefined ? {} : { backgroundUntil: options.backgroundUntil }) })) as number;
  } catch (error) {
    if (error instanceof LedgerError || error instanceof ArchiveError) throw error;
    return null;
  } finally {
    release();
  }
}
