import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { nodeBuiltin } from '../builtin';

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
/** zlib's level for large members (memory JSONL compresses nearly as well as at 6, at a fraction of the CPU). */
export const LARGE_LEVEL = 1;

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
 * A large member's Deflate run in the worker while its bytes are still being made: zlib's raw Deflate
 * (the one writeZip gives a large member, at the same level) fed a piece at a time as each is
 * written. zlib's output does not depend on how its input is cut into pieces, so the result is the
 * bytes `zlib.deflateRaw` gives the whole. The pieces are views of memory shared with the worker
 * (nothing is copied) and must not change once given. writeZip takes the result for a member whose
 * bytes are exactly the pieces, in order (compared byte for byte); otherwise it deflates the member
 * itself.
 */
export class StreamedDeflate {
  private readonly pieces: Uint8Array[] = [];
  private length = 0;
  private result: Promise<Uint8Array | null> | null = null;

  private constructor(private readonly stream: PoolStream, readonly level: number) {}

  /** A Deflate at `level` in the worker; null when there is no worker. */
  static start(level: number): StreamedDeflate | null {
    const stream = deflatePool()?.stream(level);
    return stream ? new StreamedDeflate(stream, level) : null;
  }

  /** Bytes that follow those given so far: a view of a SharedArrayBuffer's memory, left unchanged from now on. */
  write(piece: Uint8Array): void {
    if (this.result !== null) throw new Error('StreamedDeflate: written after its end');
    if (!(piece.buffer instanceof SharedArrayBuffer)) throw new Error('StreamedDeflate: a piece must be shared memory');
    this.pieces.push(piece);
    this.length += piece.byteLength;
    this.stream.write(piece);
  }

  /** No more pieces: the Deflate finishes. */
  end(): void {
    this.result ??= this.stream.end();
  }

  /** Stops it unless it was ended (nothing will ask for its result). */
  abort(): void {
    if (this.result !== null) return;
    this.stream.abort();
    this.result = Promise.resolve(null);
  }

  /** Whether `data` is exactly the bytes given (and the Deflate is at `level`). */
  holds(data: Uint8Array, level: number): boolean {
    if (level !== this.level || data.byteLength !== this.length) return false;
    const whole = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let at = 0;
    for (const piece of this.pieces) {
      if (whole.compare(piece, 0, piece.byteLength, at, at + piece.byteLength) !== 0) return false;
      at += piece.byteLength;
    }
    return true;
  }

  /** The deflated bytes, or null if the worker failed. */
  deflated(): Promise<Uint8Array | null> {
    this.end();
    return this.result!;
  }
}

/**
 * The worker: one (the machines this runs on have two cores; the main thread is the other), started
 * on first use, referenced only while it has work so that it never keeps a process alive.
 */
interface Pool {
  deflate(data: Uint8Array, level: number): Promise<Uint8Array | null>;
  stream(level: number): PoolStream | null;
}

interface PoolStream {
  write(piece: Uint8Array): void;
  end(): Promise<Uint8Array | null>;
  abort(): void;
}

let pool: Pool | null | undefined;

/** node:worker_threads (~1.5 ms of CPU to load), once a pool starts: a sync with nothing to deflate starts none. */
const workerThreads = nodeBuiltin<typeof import('node:worker_threads')>('node:worker_threads');

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

/**
 * The worker's code (CommonJS, evaluated): fflate's deflateSync on each message with data, the
 * output transferred back; and zlib's raw Deflate streams (StreamedDeflate), one per stream id, fed
 * the shared pieces as they come, their output transferred back once ended (or dropped if aborted).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const zlib = require('node:zlib');
const streams = new Map();
function onStream({ stream, level, piece, end, abort }) {
  if (level !== undefined) {
    const deflate = zlib.createDeflateRaw({ level, chunkSize: 1 << 20 });
    const state = { deflate, out: [], failed: false };
    deflate.on('data', (chunk) => state.out.push(chunk));
    deflate.on('error', () => { state.failed = true; });
    streams.set(stream, state);
    return;
  }
  const state = streams.get(stream);
  if (!state) return;
  if (piece) { if (!state.failed) state.deflate.write(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)); return; }
  streams.delete(stream);
  if (abort) { state.deflate.destroy(); return; }
  if (end) {
    const done = () => {
      let out = null;
      if (!state.failed) {
        out = new Uint8Array(state.out.reduce((n, chunk) => n + chunk.length, 0));
        let at = 0;
        for (const chunk of state.out) { out.set(chunk, at); at += chunk.length; }
      }
      parentPort.postMessage({ id: stream, out }, out ? [out.buffer] : []);
    };
    if (state.failed) return done();
    state.deflate.on('end', done);
    state.deflate.on('error', done);
    state.deflate.end();
  }
}
import(workerData.fflate).then(({ deflateSync }) => {
  parentPort.on('message', (message) => {
    if (message.stream !== undefined) return onStream(message);
    const { id, data, level } = message;
    let out = null;
    try { out = deflateSync(data, { level }); } catch { out = null; }
    parentPort.postMessage({ id, out }, out ? [out.buffer] : []);
  });
  parentPort.postMessage({ ready: true });
}, () => parentPort.postMessage({ failed: true }));
`;

function startPool(fflate: string): Pool {
  // No inherited execArgv: the worker needs plain Node (a loader such as tsx's would start again in it).
  const worker = new (workerThreads().Worker)(WORKER_SOURCE, { eval: true, workerData: { fflate }, execArgv: [] });
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
    stream(level) {
      if (broken) return null;
      const stream = next++;
      worker.postMessage({ stream, level });
      // Not referenced until it is ended: a stream never ended (its writer failed) keeps no process alive.
      return {
        // A view of shared memory: the worker reads the same bytes, nothing is copied.
        write: (piece) => worker.postMessage({ stream, piece }),
        end: () => {
          if (broken) return Promise.resolve(null);
          return new Promise((resolve) => {
            waiting.set(stream, resolve);
            worker.ref();
            worker.postMessage({ stream, end: true });
          });
        },
        abort: () => worker.postMessage({ stream, abort: true }),
      };
    },
  };
}
