/**
 * The ingest thread (issue 18 §5): a large upload is parsed, checked, stored and indexed here, on
 * this thread's own connection to the data directory's database, so the server's event loop goes
 * on serving other requests meanwhile. The very same `ingestSnapshot` / `ingestDelta` run as on the
 * main thread; errors travel back as their code, message and details (offload.ts rebuilds them).
 * So does the fold of the entries a local sync left pending (`catchUpIndex`), when a reader or an
 * ingest of the serving thread finds them and no background catch-up is at work.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { Drizzle } from '@/db/client';
import * as schema from '@/db/schema';
import { setWriterPragmas } from '@/db/writer-pragmas';
import { ArchiveError } from '@/lib/core/archive/types';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { LedgerError } from '@/lib/ledger/errors';
import type { IngestResult } from '@/lib/ledger/ingest';
import type { Ledger } from '@/lib/ledger/ledger';
import { catchUpIndex } from '@/lib/history/pending-index';
import { ingestDelta, ingestSnapshot } from './embedded-ingest';

/** One upload handed to the thread. */
export interface IngestJob {
  id: number;
  kind: 'snapshot' | 'delta';
  agentId: string;
  baseSequence?: number;
  bytes: Uint8Array;
  now: string;
  limits?: Record<string, number>;
  tenantId?: string | null;
  /** A local sync's large upload: appended and marked pending, its fold left to a catch-up (embedded-ingest.ts). */
  deferIndexFrom?: number;
}

/** The index's pending entries (of one agent, when given) to fold: answered with how many were folded. */
export interface CatchUpJob {
  id: number;
  kind: 'catch-up';
  agentId?: string;
  /** A reader's catch-up waits this long for another process's write lock, and until then for a background catch-up (pending-index.ts CatchUpOptions). */
  busyWaitMs?: number;
  backgroundUntil?: number;
}

export type WorkerJob = IngestJob | CatchUpJob;

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  details?: Record<string, unknown>;
  cause?: SerializedError;
}

export type IngestAnswer = { id: number; result: IngestResult | number } | { id: number; error: SerializedError };

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}),
    ...(error instanceof LedgerError ? { details: { ...error.details } } : {}),
    ...(error.cause instanceof ArchiveError ? { cause: serializeError(error.cause) } : {}),
  };
}

export function openWorkerLedger(dataDir: string, driver: string, packing: 'deferred' | undefined): Ledger {
  const Database = createRequire(driver)(driver) as typeof BetterSqlite3;
  const sqlite = new Database(path.join(dataDir, 'lineage.db'), { fileMustExist: true });
  setWriterPragmas(sqlite);
  // The server's checkpoint thread checkpoints; this connection never does on commit.
  sqlite.pragma('wal_autocheckpoint = 0');
  const db = drizzle({ client: sqlite, schema }) as unknown as Drizzle;
  return { db: { sqlite, db, dataDir }, blobs: new FsBlobStore(path.join(dataDir, 'blobs'), packing ? { pack: packing } : {}) };
}

if (parentPort && (workerData as { lineageIngestWorker?: boolean } | null)?.lineageIngestWorker) {
  const port = parentPort;
  const ledger = openWorkerLedger(workerData.dataDir as string, workerData.driver as string, workerData.packing as 'deferred' | undefined);
  const start = (job: WorkerJob): Promise<IngestResult | number> => {
    if (job.kind === 'catch-up') {
      const { busyWaitMs, backgroundUntil } = job;
      return catchUpIndex(ledger, job.agentId, { ...(busyWaitMs === undefined ? {} : { busyWaitMs }), ...(backgroundUntil === undefined ? {} : { backgroundUntil }) });
    }
    const params = { ledger, agentId: job.agentId, bytes: job.bytes, now: new Date(job.now), limits: job.limits, tenantId: job.tenantId, deferIndexFrom: job.deferIndexFrom };
    return job.kind === 'snapshot' ? ingestSnapshot(params) : ingestDelta({ ...params, baseSequence: job.baseSequence! });
  };
  port.on('message', (job: WorkerJob) => {
    start(job).then(
      (result) => port.postMessage({ id: job.id, result } satisfies IngestAnswer),
      (error: unknown) => port.postMessage({ id: job.id, error: serializeError(error) } satisfies IngestAnswer),
    );
  });
}
