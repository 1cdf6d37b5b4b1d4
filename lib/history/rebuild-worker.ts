/**
 * The rebuild's helper thread: reads, verifies and prepares chunks of ledger blobs
 * (`prepareBlobFile`) while the main thread writes the index. Messages come and go on the port
 * passed in `workerData.port` (slot 1 of the shared counter says the thread is up); after each answer the shared counter is bumped and notified, so the
 * main thread can wait for it synchronously (it is inside one SQLite transaction, not serving).
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { prepareBlobFile, type BlobJob, type PreparedEntry } from './ledger-blob';

export interface ChunkRequest {
  chunk: number;
  jobs: BlobJob[];
}

export interface ChunkAnswer {
  chunk: number;
  prepared: (PreparedEntry | null)[];
}

const data = workerData as { lineageRebuildWorker?: true; port: MessagePort; signal: Int32Array; stored: string[] } | null;
if (parentPort && data?.lineageRebuildWorker) {
  const { port, signal } = data;
  const stored = new Set(data.stored);
  port.on('message', (request: ChunkRequest | 'close') => {
    if (request === 'close') {
      port.close();
      return;
    }
    const prepared = request.jobs.map((job) => {
      try {
        return prepareBlobFile(job, stored);
      } catch {
        return null;
      }
    });
    port.postMessage({ chunk: request.chunk, prepared } satisfies ChunkAnswer);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
  Atomics.store(signal, 1, 1);
  Atomics.notify(signal, 0);
}
