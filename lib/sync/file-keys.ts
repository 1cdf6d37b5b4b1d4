/**
 * The file keys a sync remembers: for each record-bearing file of the last export, the adapter's
 * digest of everything its record keys derive from, and those keys (`SlotExport.fileKeys`). The
 * next export takes a file whose digest it finds from here instead of chunking it again: in a
 * large store most files do not change between two syncs.
 *
 * Unlike the record memo, this does not describe a base: a file's keys are a function of its
 * digest's inputs alone. Anything unreadable is ignored (every file is then chunked).
 *
 * File: `{agent}-files.keys` in the state directory, ASCII. A header line `lineage-file-keys 1
 * <files>\n`, then per file, with nothing between: the digest (64 hex digits), the number of keys
 * (6 decimal digits), the keys (32 printable characters each).
 */
import path from 'node:path';
import { NO_FILE_KEYS, type FileKeys } from '@/lib/adapters/types';
import { readWhole, writeFileAtomic } from './state';

const MAGIC = 'lineage-file-keys 1';
const DIGEST_CHARS = 64;
const COUNT_CHARS = 6;
const KEY_CHARS = 32;
const HEX_DIGEST = /^[0-9a-f]{64}$/;
const COUNT = /^\d{6}$/;
/** Printable ASCII without the space: what every key character must be. */
const PRINTABLE = /^[\x21-\x7e]*$/;

export function fileKeysPath(stateDir: string, agentId: string): string {
  return path.join(stateDir, `${agentId}-files.keys`);
}

/** The file keys in `file`; empty when there is none or it is not exactly as written. */
export async function readFileKeys(file: string): Promise<FileKeys> {
  const bytes = await readWhole(file).catch(() => null);
  return bytes === null ? NO_FILE_KEYS : parseFileKeys(bytes);
}

export function parseFileKeys(bytes: Buffer): FileKeys {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || newline > 100) return NO_FILE_KEYS;
  const [magic, version, countText, ...rest] = bytes.toString('latin1', 0, newline).split(' ');
  if (`${magic} ${version}` !== MAGIC || rest.length > 0 || !/^\d{1,9}$/.test(countText ?? '')) return NO_FILE_KEYS;
  const text = bytes.toString('latin1', newline + 1);
  if (!PRINTABLE.test(text)) return NO_FILE_KEYS;
  const out = new Map<string, string[]>();
  let at = 0;
  for (let files = Number(countText); files > 0; files--) {
    const digest = text.slice(at, at + DIGEST_CHARS);
    const count = text.slice(at + DIGEST_CHARS, at + DIGEST_CHARS + COUNT_CHARS);
    if (!HEX_DIGEST.test(digest) || !COUNT.test(count) || out.has(digest)) return NO_FILE_KEYS;
    at += DIGEST_CHARS + COUNT_CHARS;
    const end = at + Number(count) * KEY_CHARS;
    if (end > text.length) return NO_FILE_KEYS;
    const keys: string[] = [];
    for (; at < end; at += KEY_CHARS) keys.push(text.slice(at, at + KEY_CHARS));
    out.set(digest, keys);
  }
  return at === text.length ? out : NO_FILE_KEYS;
}

/**
 * The file's bytes for `fileKeys`; a file whose digest or keys do not have the fixed widths (or
 * has more keys than six digits count) is left out, and is simply chunked next time.
 */
export function encodeFileKeys(fileKeys: ReadonlyMap<string, readonly string[]>): Buffer {
  const parts: string[] = [];
  let files = 0;
  for (const [digest, keys] of fileKeys) {
    if (!HEX_DIGEST.test(digest) || keys.length >= 10 ** COUNT_CHARS || keys.some((key) => key.length !== KEY_CHARS)) continue;
    const joined = keys.join('');
    if (!PRINTABLE.test(joined)) continue;
    parts.push(digest, String(keys.length).padStart(COUNT_CHARS, '0'), joined);
    files++;
  }
  return Buffer.from(`${MAGIC} ${files}\n${parts.join('')}`, 'latin1');
}

/** Writes the file keys (temporary name, then renamed; not flushed: a torn file is not read). */
export async function writeFileKeys(file: string, fileKeys: ReadonlyMap<string, readonly string[]>): Promise<void> {
  await writeFileAtomic(file, encodeFileKeys(fileKeys), { durable: false });
}
