'use strict';
// Runs the CLI's one-file CommonJS bundle with a V8 code cache beside it (Node 20 has no
// `module.enableCompileCache`). A fresh `lineage sync` process otherwise parses and compiles the
// bundle's ~1.6 MB and then every function it calls, once more per process; with the cache V8
// takes their bytecode as it was at the end of an earlier run of the same command.
//
// The cache file: a 28-byte header (magic, format, the bundle's byte length and CRC-32, the
// payload's byte length and CRC-32, the CPU time of the run that made it), then V8's data. V8 itself refuses data of another V8 or other
// flags (`cachedDataRejected`); it checks the source only by its length, and a damaged payload is
// not always caught, so the header's checks come first: a cache that fails them is not given to V8.
// A missing, refused or failed cache is made again at the end of the run and put in place by a
// rename, so a concurrent start reads either the old file or the new one, never half of one.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const zlib = require('node:zlib');
const { isAscii } = require('node:buffer');
const { createRequire } = require('node:module');

const MAGIC = 0x4c4e5638; // 'LNV8'
const FORMAT = 2;
const HEADER_BYTES = 28;
/** A run this many times longer (in CPU) than the one that made the cache checks what it compiled. */
const LONGER_RUN = 1.25;
/** ... and replaces the cache when V8's data for it is over a tenth larger. */
const GROWN = 1.1;

/** The CPU time of this process so far, in whole ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return Math.min(0xffffffff, Math.round((user + system) / 1000));
};

/** The cache's bytes for `source` (a Buffer) and V8's `payload`, made by a run of `madeCpuMs`. */
function encodeCache(source, payload, madeCpuMs = 0) {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(FORMAT, 4);
  header.writeUInt32LE(source.length, 8);
  header.writeUInt32LE(zlib.crc32(source), 12);
  header.writeUInt32LE(payload.length, 16);
  header.writeUInt32LE(zlib.crc32(payload), 20);
  header.writeUInt32LE(madeCpuMs, 24);
  return Buffer.concat([header, payload]);
}

/** V8's payload from a cache file's bytes, or null when they are not a whole cache of `source`. */
function decodeCache(source, bytes) {
  if (bytes.length < HEADER_BYTES) return null;
  if (bytes.readUInt32LE(0) !== MAGIC || bytes.readUInt32LE(4) !== FORMAT) return null;
  if (bytes.readUInt32LE(8) !== source.length || bytes.readUInt32LE(12) !== zlib.crc32(source)) return null;
  const payload = bytes.subarray(HEADER_BYTES);
  if (bytes.readUInt32LE(16) !== payload.length || bytes.readUInt32LE(20) !== zlib.crc32(payload)) return null;
  return payload;
}

/** The CPU time (ms) of the run that made a cache `decodeCache` accepted. */
const cacheMadeCpuMs = (bytes) => bytes.readUInt32LE(24);

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
 * The text of a JavaScript file's bytes: UTF-8, decoded as Latin-1 when every byte is ASCII (the
 * CLI's bundle: cli-bundle.cjs) — the same string, a one-byte one, made several times faster.
 */
function sourceText(bytes) {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * Runs the CommonJS file `file` as Node would (its own `require`, `module`, `__filename`), its
 * compiled code taken from `cacheFile` when that holds a good cache of it. Returns how the cache
 * was found: 'accepted', 'absent', 'damaged' (failed the header's checks) or 'rejected' (by V8);
 * in all but the first a new cache is written when the process exits. `cacheFile` null: no cache.
 * `command`: written only if the bundle says this command ran (see cacheFor).
 */
function runCommonJs({ file, cacheFile, command = null }) {
  const source = fs.readFileSync(file);
  const useCache = cacheFile !== null && typeof zlib.crc32 === 'function';
  let payload;
  let madeCpuMs = 0;
  let status = 'absent';
  if (useCache) {
    try {
      const bytes = fs.readFileSync(cacheFile);
      payload = decodeCache(source, bytes) ?? undefined;
      status = payload ? 'accepted' : 'damaged';
      if (payload) madeCpuMs = cacheMadeCpuMs(bytes);
    } catch {
      payload = undefined;
    }
  }
  // Node's own CommonJS wrapper, on the bundle's first line so that its line numbers stay true.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${sourceText(source)}\n})`, {
    filename: file,
    cachedData: payload,
  });
  if (payload && script.cachedDataRejected) status = 'rejected';
  if (useCache) {
    // At exit, so that the cache holds every function this run compiled, not only the top level.
    // An accepted cache may lack what this run compiled (made by an idle sync, this one
    // reconciles): a run much longer than the one that made it asks V8 for its data (~1 ms per
    // 100 KB, so not at every run) and keeps them when they are larger.
    process.once('exit', () => {
      try {
        // A word that turned out to be no command (a typo) keeps no cache of its own.
        if (command !== null && globalThis[Symbol.for('lineage.cli.command')] !== command) return;
        const cpu = cpuMs();
        if (status === 'accepted' && cpu <= madeCpuMs * LONGER_RUN) return;
        const data = script.createCachedData();
        if (status !== 'accepted' || data.length > payload.length * GROWN) writeAtomic(cacheFile, encodeCache(source, data, cpu));
      } catch {
        // no cache this time
      }
    });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
  return status;
}

/**
 * The cache of a run of the bundle `file` with `argv` (the words after the script): one per
 * command, as each compiles other code (`command`: the word, to be confirmed by the bundle as a
 * command before its cache is written); 'other' for options alone (`--help`, `--version`).
 */
function cacheFor(file, argv) {
  const word = argv[0];
  const command = typeof word === 'string' && /^[a-z][a-z0-9-]{0,31}$/.test(word) ? word : null;
  return { cacheFile: path.join(path.dirname(file), `${command ?? 'other'}.v8cache`), command };
}

exports.encodeCache = encodeCache;
exports.decodeCache = decodeCache;
exports.cacheMadeCpuMs = cacheMadeCpuMs;
exports.sourceText = sourceText;
exports.runCommonJs = runCommonJs;
exports.cacheFor = cacheFor;
