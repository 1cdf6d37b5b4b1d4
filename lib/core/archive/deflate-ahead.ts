import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { Worker } from 'node:worker_threads';

/**
 * fflate's raw Deflate of small members, started ahead of the archive write in a worker thread.
 *
 * A sync deflates every changed file of the workspace (a 1% edit of a 50,000-record store: 325
 * files, ~0.4 s of fflate on the main thread), but only once the export and the reconcile are
 * done. The export knows the bytes of every file it reads much earlier: it hands them here, a
 * worker deflates them with the same fflate build (its ESM file, which the main thread imports) at
 * the same level while the main thread chunks and reconciles, and `writeZip` takes the result for
 * that very buffer. Same code, same input, same level: the same bytes (the property test in
 * deflate-ahead.property.test.ts compares them with the main thread's over random inputs).
 *
 * A result is used only for the Uint8Array it was asked for (a WeakMap: nothing is kept once the
 * buffer is gone), and only if the CRC-32 and length of the bytes written match those the worker
 * deflated (the buffer was not changed meanwhile). Anything that goes wrong (no worker, a worker
 * that fails) yields null, and the member is deflated on the main thread as before.
 */

/** Members below this size are deflated by fflate (see zip-write.ts); larger ones by zlib on the thread pool. */
export const SMALL_BYTES = 16 * 1024;
/** fflate's level for small members. */
export const SMALL_LEVEL = 6;

type Deflated = { out: Uint8Array; crc: number; length: number } | null;
type Ahead = { level: number; result: Promise<Deflated> };

/** Node's native CRC-32 (≥ 20.15); without it nothing is deflated ahead. */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

const ahead = new WeakMap<Uint8Array, Ahead>();

/** Starts deflating `data` (a small member's bytes at `level`) in the worker; no-op for large or empty data. */
export function deflateAhead(data: Uint8Array, level: number = SMALL_LEVEL): void {
  if (data.byteLength === 0 || data.byteLength >= SMALL_BYTES || ahead.get(data)?.level === level) return;
  const pool = deflatePool();
  if (!pool || !crc32) return;
  const crc = crc32(data);
  const result = pool.deflate(data, level).then((out) => (out ? { out, crc, length: data.byteLength } : null));
  ahead.set(data, { level, result });
}

/**
 * The Deflate started for this buffer at this level, if any: resolves to the deflated bytes, or to
 * null when they cannot be used (the worker failed, or `data` no longer holds the bytes it deflated).
 */
export function deflatedAhead(data: Uint8Array, level: number): Promise<Uint8Array | null> | null {
  const started = ahead.get(data);
  if (!started || started.level !== level) return null;
  return started.result.then((done) => (done && done.length === data.byteLength && done.crc === crc32!(data) ? done.out : null));
}

/**
 * The worker: one (the machines this runs on have two cores; the main thread is the other), started
 * on first use, referenced only while it has work so that it never keeps a process alive.
 */
interface Pool {
  deflate(data: Uint8Array, level: number): Promise<Uint8Array | null>;
}

let pool: Pool | null | undefined;

function deflatePool(): Pool | null {
  if (pool !== undefined) return pool;
  pool = null;
  // With one core the worker would only take turns with this thread, at the cost of its start.
  if (os.availableParallelism() < 2) return pool;
  try {
    pool = startPool(fflateModuleUrl());
  } catch {
    pool = null;
  }
  return pool;
}

/** The file URL of the fflate build this process imports (`fflate` under Node's `import` condition). */
function fflateModuleUrl(): string {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('fflate/package.json'));
  const exportsMap = (require('fflate/package.json') as { exports: { '.': { node: { import: { default: string } } } } }).exports;
  return pathToFileURL(path.join(dir, exportsMap['.'].node.import.default)).href;
}

/** The worker's code (CommonJS, evaluated): fflate's deflateSync on each message, the output transferred back. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.fflate).then(({ deflateSync }) => {
  parentPort.on('message', ({ id, data, level }) => {
    let out = null;
    try { out = deflateSync(data, { level }); } catch { out = null; }
    parentPort.postMessage({ id, out }, out ? [out.buffer] : []);
  });
  parentPort.postMessage({ ready: true });
}, () => parentPort.postMessage({ failed: true }));
`;

function startPool(fflate: string): Pool {
  // No inherited execArgv: the worker needs plain Node (a loader such as tsx's would start again in it).
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { fflate }, execArgv: [] });
  const waiting = new Map<number, (out: Uint8Array | null) => void>();
  let next = 0;
  let broken = false;
  const failAll = () => {
    broken = true;
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
    worker.unref();
  };
  worker.unref();
  worker.on('message', (message: { id?: number; out?: Uint8Array | null; failed?: boolean }) => {
    if (message.failed) return failAll();
    if (message.id === undefined) return;
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    if (waiting.size === 0) worker.unref();
    resolve?.(message.out ? new Uint8Array(message.out.buffer, message.out.byteOffset, message.out.byteLength) : null);
  });
  worker.on('error', failAll);
  worker.on('exit', failAll);
  return {
    deflate(data, level) {
      if (broken) return Promise.resolve(null);
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        worker.ref();
        // The worker gets a copy: the caller's buffer stays as it is.
        worker.postMessage({ id, data, level });
      });
    },
  };
}
