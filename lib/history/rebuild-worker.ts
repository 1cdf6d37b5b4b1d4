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

/**
 * The prepared entries of a chunk as JSON text (one string clones and parses much faster than a
 * graph of small objects), with the raw files' bytes beside it: each `bytes` in the JSON is the
 * index of its array in `bytes` (or null).
 */
export interface ChunkAnswer {
  chunk: number;
  json: string;
  bytes: Uint8Array[];
}

/** Encodes prepared entries for `ChunkAnswer`. */
export function encodeChunk(chunk: number, prepared: (PreparedEntry | null)[]): ChunkAnswer {
  const bytes: Uint8Array[] = [];
  const json = JSON.stringify(prepared, (key, value: unknown) => {
    if (key === 'bytes' && value instanceof Uint8Array) return bytes.push(value) - 1;
    return value;
  });
  return { chunk, json, bytes };
}

/** Decodes a `ChunkAnswer` back into prepared entries. */
export function decodeChunk(answer: ChunkAnswer): (PreparedEntry | null)[] {
  const prepared = JSON.parse(answer.json) as (PreparedEntry | null)[];
  for (const entry of prepared) {
    if (!entry) continue;
    for (const file of entry.kind === 'delta' ? entry.rawChanged : entry.raw) {
      if (file.bytes !== null) file.bytes = answer.bytes[file.bytes as unknown as number]!;
    }
  }
  return prepared;
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
    port.postMessage(encodeChunk(request.chunk, prepared));
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
  Atomics.store(signal, 1, 1);
  Atomics.notify(signal, 0);
}
