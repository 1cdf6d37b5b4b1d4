// Runs the CLI's one-file CommonJS bundle with a V8 code cache beside it (Node 20 has no
// `module.enableCompileCache`). A fresh `lineage sync` process otherwise parses and compiles the
// bundle's ~1.6 MB and then every function it calls, once more per process; with the cache V8
// takes their bytecode as it was at the end of an earlier run of the same command.
//
// The cache file: a 24-byte header (magic, format, the bundle's byte length and CRC-32, the
// payload's byte length and CRC-32), then V8's data. V8 itself refuses data of another V8 or other
// flags (`cachedDataRejected`); it checks the source only by its length, and a damaged payload is
// not always caught, so the header's checks come first: a cache that fails them is not given to V8.
// A missing, refused or failed cache is made again at the end of the run and put in place by a
// rename, so a concurrent start reads either the old file or the new one, never half of one.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';

const MAGIC = 0x4c4e5638; // 'LNV8'
const FORMAT = 1;
const HEADER_BYTES = 24;

/** The cache's bytes for `source` (a Buffer) and V8's `payload`. */
export function encodeCache(source, payload) {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(FORMAT, 4);
  header.writeUInt32LE(source.length, 8);
  header.writeUInt32LE(zlib.crc32(source), 12);
  header.writeUInt32LE(payload.length, 16);
  header.writeUInt32LE(zlib.crc32(payload), 20);
  return Buffer.concat([header, payload]);
}

/** V8's payload from a cache file's bytes, or null when they are not a whole cache of `source`. */
export function decodeCache(source, bytes) {
  if (bytes.length < HEADER_BYTES) return null;
  if (bytes.readUInt32LE(0) !== MAGIC || bytes.readUInt32LE(4) !== FORMAT) return null;
  if (bytes.readUInt32LE(8) !== source.length || bytes.readUInt32LE(12) !== zlib.crc32(source)) return null;
  const payload = bytes.subarray(HEADER_BYTES);
  if (bytes.readUInt32LE(16) !== payload.length || bytes.readUInt32LE(20) !== zlib.crc32(payload)) return null;
  return payload;
}

/** `bytes` written to `file` under a temporary name, then renamed over it (never written in place). */
function writeAtomic(file, bytes) {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, file);
  } catch {
    // A read-only install keeps running without a cache.
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Runs the CommonJS file `file` as Node would (its own `require`, `module`, `__filename`), its
 * compiled code taken from `cacheFile` when that holds a good cache of it. Returns how the cache
 * was found: 'accepted', 'absent', 'damaged' (failed the header's checks) or 'rejected' (by V8);
 * in all but the first a new cache is written when the process exits. `cacheFile` null: no cache.
 */
export function runCommonJs({ file, cacheFile }) {
  const source = fs.readFileSync(file);
  const useCache = cacheFile !== null && typeof zlib.crc32 === 'function';
  let payload;
  let status = 'absent';
  if (useCache) {
    try {
      payload = decodeCache(source, fs.readFileSync(cacheFile)) ?? undefined;
      status = payload ? 'accepted' : 'damaged';
    } catch {
      payload = undefined;
    }
  }
  // Node's own CommonJS wrapper, on the bundle's first line so that its line numbers stay true.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source.toString('utf8')}\n})`, {
    filename: file,
    cachedData: payload,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (payload && script.cachedDataRejected) status = 'rejected';
  if (useCache) {
    // At exit, so that the cache holds every function this run compiled, not only the top level;
    // an accepted cache is replaced only when this run compiled more than it held (more than a
    // tenth more: a command's first run may not have taken its longest path, an idle sync).
    process.once('exit', () => {
      try {
        const data = script.createCachedData();
        if (status !== 'accepted' || data.length > payload.length * 1.1) writeAtomic(cacheFile, encodeCache(source, data));
      } catch {
        // no cache this time
      }
    });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
  return status;
}

/** The cache file of a command run from the bundle `file`: one per command word, as each compiles other code. */
export function cacheFileFor(file, command) {
  const name = typeof command === 'string' && /^[a-z][a-z0-9-]{0,31}$/.test(command) ? command : 'other';
  return path.join(path.dirname(file), `${name}.v8cache`);
}
