/**
 * The record memo: which export keys reconciled to which base line, unchanged, at the last sync.
 *
 * An adapter that exports record slots (`Adapter.exportSlots`) gives every record a key that
 * determines the whole record except its timestamps' values. When a sync pairs a record early with
 * its base line (reconcileWithBase: the record, with the base's timestamps carried over, serializes
 * to exactly that line), that outcome depends on nothing but the key and the line. So the memo keeps,
 * for each such record, `key → record id`; at the next sync, a record with the same key pairs with
 * the base line of that id, as it did — without being built, serialized or compared.
 *
 * The memo describes one base file: it names that file's sha256, and is ignored for any other
 * base (a crash between writing the two, a restore, another client writing the base). Anything
 * unreadable is ignored too: the memo only ever saves work, and without it every record is built.
 *
 * File: `{agent}-snapshot.keys` beside the base, ASCII. A header line `lineage-record-memo 1 <base
 * sha256> <count>\n`, then `count` entries of 68 characters with nothing between them: the key
 * (32 hex digits), then the id (a hyphenated UUID). Fixed-width text, so reading it is slicing
 * one string.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@/lib/core/uuid';
import { readWhole, writeFileAtomic } from './state';

/**
 * One known record in SPOT_CHECK is built anyway and must pair with the base line of the id the
 * memo names (KnownRecord.verify). The memo is tied to its base's bytes, and its keys to the code
 * that builds records (RECORD_KEY_VERSION); this catches a memo that is wrong anyway (say, a code
 * change that forgot to move that version), and then the reconcile runs again with every record
 * built.
 */
export const SPOT_CHECK = 256;

const MAGIC = 'lineage-record-memo 1';
const KEY_CHARS = 32;
const ID_CHARS = 36;
const ENTRY_CHARS = KEY_CHARS + ID_CHARS;
/** Printable ASCII without the space: what every key and id character must be. */
const PRINTABLE = /^[\x21-\x7e]*$/;

/**
 * Key → record id, for the base it was read against: the file's text itself, looked up through an
 * open-addressing table of entry numbers (no string per entry is made until its id is asked for).
 */
export class RecordMemo {
  private readonly table: Int32Array;
  private readonly mask: number;

  /**
   * `text`: the entries, ENTRY_CHARS each (and `body`, the same as bytes, when the caller has
   * them); null when one key appears twice.
   */
  static of(text: string, body?: Buffer): RecordMemo | null {
    const memo = new RecordMemo(text, body ?? null);
    return memo.fill() ? memo : null;
  }

  private constructor(private readonly text: string, private body: Buffer | null) {
    let size = 16;
    while (size < (text.length / ENTRY_CHARS) * 2) size *= 2;
    this.table = new Int32Array(size);
    this.mask = size - 1;
  }

  get size(): number {
    return this.text.length / ENTRY_CHARS;
  }

  has(key: string): boolean {
    return this.entryOf(key) >= 0;
  }

  /** The number of the key's entry, or -1. */
  entryOf(key: string): number {
    if (key.length !== KEY_CHARS) return -1;
    for (let slot = RecordMemo.hash(key, 0) & this.mask; ; slot = (slot + 1) & this.mask) {
      const held = this.table[slot]!;
      if (held === 0) return -1;
      if (this.text.startsWith(key, (held - 1) * ENTRY_CHARS)) return held - 1;
    }
  }

  /** The id of entry `entry` (a number `entryOf` gave). */
  idAt(entry: number): string {
    return this.text.slice(entry * ENTRY_CHARS + KEY_CHARS, (entry + 1) * ENTRY_CHARS);
  }

  /** The bytes of entries `from` to `to` (excluded), as the file holds them. */
  entryBytes(from: number, to: number): Buffer {
    this.body ??= Buffer.from(this.text, 'latin1');
    return this.body.subarray(from * ENTRY_CHARS, to * ENTRY_CHARS);
  }

  *[Symbol.iterator](): IterableIterator<[key: string, id: string]> {
    for (let entry = 0; entry < this.size; entry++) yield [this.text.slice(entry * ENTRY_CHARS, entry * ENTRY_CHARS + KEY_CHARS), this.idAt(entry)];
  }

  /** The key's slot hash: its first 8 characters' codes mixed (keys are hex digests). */
  private static hash(text: string, at: number): number {
    let h = 0x811c9dc5;
    for (let k = 0; k < 8; k++) h = Math.imul(h ^ text.charCodeAt(at + k), 16777619);
    return h >>> 0;
  }

  private fill(): boolean {
    for (let entry = 0; entry < this.size; entry++) {
      const at = entry * ENTRY_CHARS;
      for (let slot = RecordMemo.hash(this.text, at) & this.mask; ; slot = (slot + 1) & this.mask) {
        const held = this.table[slot]!;
        if (held === 0) {
          this.table[slot] = entry + 1;
          break;
        }
        if (this.text.startsWith(this.text.slice(at, at + KEY_CHARS), (held - 1) * ENTRY_CHARS)) return false;
      }
    }
    return true;
  }
}

export function memoPath(stateDir: string, agentId: string): string {
  return path.join(stateDir, `${agentId}-snapshot.keys`);
}

/** The memo for the base whose bytes are `base`, or null when there is none that describes them. */
export async function readRecordMemo(file: string, base: Uint8Array | string): Promise<RecordMemo | null> {
  const bytes = await readWhole(file).catch(() => null);
  return bytes === null ? null : parseRecordMemo(bytes, typeof base === 'string' ? base : sha256Hex(base));
}

export function parseRecordMemo(bytes: Buffer, baseSha256: string): RecordMemo | null {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || newline > 200) return null;
  const [magic, version, sha, countText] = bytes.toString('latin1', 0, newline).split(' ');
  if (`${magic} ${version}` !== MAGIC || sha !== baseSha256 || !/^\d{1,9}$/.test(countText ?? '')) return null;
  const count = Number(countText);
  if (bytes.length !== newline + 1 + count * ENTRY_CHARS) return null;
  return RecordMemo.of(bytes.toString('latin1', newline + 1), bytes.subarray(newline + 1));
}

/**
 * What the next memo holds: entries of the memo read at this sync (`reused`: their numbers, in
 * the memo's order, for records that paired as it said), and new `key → id` entries.
 */
export interface MemoDraft {
  reused?: { memo: RecordMemo; entries: readonly number[] };
  added: readonly (readonly [key: string, id: string])[];
}

/**
 * The memo bytes for the base whose sha256 is `baseSha256`. Reused entries are copied as they
 * are, a run of consecutive ones at a time. Added entries whose key or id does not have the fixed
 * width of the file (32 and 36 printable ASCII characters) are left out: those records are simply
 * built next time. Keys are distinct (one export's; an added key is one the memo read did not
 * have); a memo read back with a repeated key is not used at all.
 */
export function encodeRecordMemo(draft: MemoDraft, baseSha256: string): Buffer {
  const { reused, added } = draft;
  const kept: string[] = [];
  for (const [key, id] of added) if (key.length === KEY_CHARS && id.length === ID_CHARS) kept.push(key + id);
  // Checked as one text (the common case: all printable), else entry by entry.
  let fresh = kept.join('');
  if (!PRINTABLE.test(fresh)) fresh = kept.filter((entry) => PRINTABLE.test(entry)).join('');
  const parts: Buffer[] = [];
  let count = fresh.length / ENTRY_CHARS;
  const entries = reused?.entries ?? [];
  for (let k = 0; k < entries.length; ) {
    const from = entries[k]!;
    let to = from + 1;
    for (k++; k < entries.length && entries[k] === to; k++) to++;
    parts.push(reused!.memo.entryBytes(from, to));
    count += to - from;
  }
  return Buffer.concat([Buffer.from(`${MAGIC} ${baseSha256} ${count}\n`, 'latin1'), ...parts, Buffer.from(fresh, 'latin1')]);
}

/**
 * Writes the memo (to a temporary name, then renamed over the old one). Not flushed to disk: after
 * a crash it may be missing or torn, and is then not read (its size or header does not fit).
 */
export async function writeRecordMemo(file: string, draft: MemoDraft, base: Uint8Array | string): Promise<void> {
  await writeFileAtomic(file, encodeRecordMemo(draft, typeof base === 'string' ? base : sha256Hex(base)), { durable: false });
}

/** Removes the memo (a base written without one must not keep an older one: it would not match anyway). */
export async function removeRecordMemo(file: string): Promise<void> {
  await fs.rm(file, { force: true });
}
