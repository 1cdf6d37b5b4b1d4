/**
 * Where the ledger's archives live. Contract every implementation keeps:
 * - `put` is atomic and durable: after it resolves the bytes survive a crash, and a reader never
 *   sees a partial blob under `key`;
 * - `get` returns exactly the bytes put, or throws `LedgerError('blob_missing')`;
 * - keys are `/`-separated relative names ending in `.alf` or `.alf-delta`;
 * - `list(prefix)` returns every stored key starting with `prefix`, sorted, nothing half-written.
 * FsBlobStore keeps most blobs packed against earlier ones (blob-packing.ts); nothing but this
 * store and blob-files.ts may read its files.
 */
import { randomBytes } from 'node:crypto';
import { close, existsSync, fdatasync, fsync, futimes, open, readFileSync, rename, statSync, write } from 'node:fs';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import { asUint8Array } from '@/lib/core/bytes';
import { BLOB_FILE, BlobFiles, DELETING_SUFFIX, PACKED_SUFFIX, wholePath } from './blob-files';
import { choosePacking, GROUP, groupOf, MAX_PACK_BYTES, packedDependants, type Packing, WINDOW } from './blob-packing';
import { decodePackedHeader, rememberStructure, type Deflater } from './packed-blob';
import { announcePacking, awaitPackingOf, endPacking } from './pack-intents';
import { packerStopPoint } from './packer-stop-points';

export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  list(prefix?: string): Promise<string[]>;
}

export { assertBlobKey } from './blob-files';
/** Blobs per packing group (a group is packed against itself only; its first blob stays whole). */
export { GROUP as PACK_GROUP } from './blob-packing';

const openFile = promisify(open);
const closeFile = promisify(close);
const datasync = promisify(fdatasync);
const fsyncFd = promisify(fsync);
const setTimes = promisify(futimes);

/**
 * Closes the directory descriptor of a store nobody holds any more. A plain descriptor, not a
 * FileHandle: Node closes a forgotten FileHandle itself, but warns (DEP0137) every time.
 */
const dirDescriptors = new FinalizationRegistry<number>((fd) => close(fd, () => {}));
const renameFile = promisify(rename);
const writeAt = promisify(write);

/** Names handled between two turns given to the event loop by a listing (list, groupsToPack). */
const YIELD_EVERY = 2048;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Writes from `offset`, returning how many bytes went out. */
async function writeFile(fd: number, bytes: Uint8Array, offset: number, length: number): Promise<number> {
  return (await writeAt(fd, bytes, offset, length, null)).bytesWritten;
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * `BlobStore` on the local filesystem: every blob is a file directly in `<data>/blobs/`, its key's
 * `/` written as `~` (a character keys cannot contain, so names stay unique). One flat directory
 * lets concurrent uploads share the directory fsync that makes their renames durable.
 *
 * At rest a blob is whole (`a~b.alf`) or packed (`a~b.alf.packed`: deflated against up to
 * WINDOW (three) earlier blobs of its group). Before `put` resolves, the packed form has been inflated
 * back and its sha256 compared with the bytes put; any doubt and the blob is stored whole. A base
 * is never removed while a packed blob needs it: `delete` first rewrites such dependants whole.
 */
export class FsBlobStore implements BlobStore {
  private rootReady: Promise<void> | null = null;
  private dirSyncRunning: Promise<void> | null = null;
  private dirSyncQueued: Promise<void> | null = null;
  /** Reads both forms (shared with the rebuild's helper thread through blob-files.ts). */
  readonly files: BlobFiles;
  /** Per key directory: the keys stored there and the highest sequence seen (a hint; every base is re-read and checked). */
  private readonly known = new Map<string, { keys: { seq: number; key: string }[]; max: number }>();
  private readonly packing: boolean;
  /** Packing is left to `packStored` (deferred): `put` writes every blob whole. */
  private readonly deferred: boolean;
  private readonly deflate: Deflater | undefined;

  /**
   * `pack: false` stores every blob whole (as before packing); `'deferred'` stores every blob whole
   * at `put` and packs them later, a group at a time, in `packStored`; `deflate` replaces the
   * packer's deflater (tests).
   */
  constructor(readonly root: string, options: { pack?: boolean | 'deferred'; deflate?: Deflater } = {}) {
    this.files = new BlobFiles(root);
    this.packing = options.pack === undefined || options.pack === 'deferred' ? process.env.LINEAGE_BLOB_PACKING !== '0' : options.pack;
    this.deferred = options.pack === 'deferred';
    this.deflate = options.deflate;
  }

  /** The file that holds `key` when stored whole. */
  pathOf(key: string): string {
    return wholePath(this.root, key);
  }

  /** The file that holds `key` at rest now (whole or packed), or null; for tools and tests that inspect or damage it. */
  fileOf(key: string): string | null {
    const whole = this.pathOf(key);
    if (existsSync(whole)) return whole;
    return existsSync(whole + PACKED_SUFFIX) ? whole + PACKED_SUFFIX : null;
  }

  private async holds(key: string, bytes: Uint8Array): Promise<'same' | 'different' | 'absent'> {
    // Synchronous checks: a missing file is the common case on this path, and a rejected fs
    // promise (an Error with its stack per call) cost more than the check itself.
    if (!this.existsNow(key)) return 'absent';
    try {
      return Buffer.from(await this.get(key)).equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) ? 'same' : 'different';
    } catch {
      return 'different';
    }
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const final = this.pathOf(key);
    await (this.rootReady ??= fs.mkdir(this.root, { recursive: true }).then(() => undefined));
    // The same bytes again (a re-ingest, two uploads of one key): already durable, in whichever form.
    const held = await this.holds(key, bytes);
    if (held === 'same') return;
    // Other bytes under a stored key are written whole (read first), never packed beside them.
    const packing = held === 'absent' && !this.deferred ? await this.packFor(key, bytes) : null;
    if (packing) {
      await this.writeDurably(final, final + PACKED_SUFFIX, packing.file);
      // A delete of a base that began meanwhile may not have seen this blob: store it whole instead.
      if (this.anyGone(packing.bases)) await this.materialize(key, bytes);
    } else {
      await this.writeDurably(final, final, bytes);
      if (held === 'different') await fs.rm(final + PACKED_SUFFIX, { force: true });
    }
    this.remember(key);
    // The next blob of this agent packs against this one: keep a copy of what a read will return.
    if (packing) {
      const copy = Uint8Array.from(bytes);
      if (packing.form) rememberStructure(copy, packing.form);
      this.files.cache.set(key, copy);
    }
  }

  /**
   * Temp file, fdatasync, rename onto `target`, fsync the directory (shared with concurrent
   * puts). The temp file is named after the whole form (`….alf.tmp-…`), what the orphan sweep
   * removes. Plain fd calls rather than a FileHandle: this is every upload's path, and each
   * FileHandle operation costs the event loop noticeably more.
   */
  private async writeDurably(final: string, target: string, bytes: Uint8Array, mtime?: Date): Promise<void> {
    const temp = `${final}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    const fd = await openFile(temp, 'wx');
    try {
      for (let offset = 0; offset < bytes.byteLength;) {
        offset += await writeFile(fd, bytes, offset, bytes.byteLength - offset);
      }
      // fdatasync: the bytes and the size needed to read them back, without the inode's times
      // (unless the caller keeps a time: then fsync).
      if (mtime) {
        await setTimes(fd, mtime, mtime);
        await fsyncFd(fd);
      } else {
        await datasync(fd);
      }
    } catch (error) {
      await closeFile(fd);
      await fs.rm(temp, { force: true });
      throw error;
    }
    await closeFile(fd);
    await renameFile(temp, target);
    await this.syncRoot();
  }

  /**
   * Packs the blobs stored whole under `prefix` (deferred packing: `put` wrote them whole), group
   * by group in sequence order, each against the blobs before it in its group exactly as `put`
   * would have packed it (the same bases, so the same packed file). `completeOnly`: only groups
   * that a later group of the same directory follows — no blob will join them any more. Each blob
   * is written packed (durably) before its whole file goes, so a kill at any moment leaves it in
   * one form or both, and a later call finishes the work. Blobs that do not pack stay whole.
   * `signal`: stop before the next blob. Safe beside deletes in other processes (pack-intents.ts).
   * Returns how many blobs were packed and how many stored whole were looked at.
   */
  async packStored(options: { prefix?: string; completeOnly?: boolean; signal?: AbortSignal } = {}): Promise<{ packed: number; considered: number }> {
    let packed = 0;
    let considered = 0;
    for (const { key, candidates } of await this.wholeToPack(options)) {
      if (options.signal?.aborted) break;
      // Still whole and small enough (a larger one is never packed: not read again on every pass).
      const size = statSync(this.pathOf(key), { throwIfNoEntry: false })?.size;
      if (size === undefined || size > MAX_PACK_BYTES) continue;
      considered++;
      if (await this.packWhole(key, candidates)) packed++;
    }
    if (packed > 0) await this.syncRoot();
    return { packed, considered };
  }

  /** The blobs a `packStored` with these options would look at now, in packing order (from the file names alone). */
  async wholeToPackKeys(options: { prefix?: string; completeOnly?: boolean } = {}): Promise<string[]> {
    // A blob has candidates when its group holds an earlier sequence: found without listing them
    // (a serving process asks every ten minutes, over every blob of the data directory).
    const { groups, whole } = await this.groupsToPack(options);
    const keys: string[] = [];
    for (const group of groups) for (const { seq, key } of group.keys) if (seq > group.keys[0]!.seq && whole.has(key)) keys.push(key);
    return keys;
  }

  /**
   * The blobs stored whole (by name) that a pass would pack, in packing order, each with its
   * candidates: as at put, the earlier sequences of its group (a rollover snapshot is not packed
   * against the delta of its own sequence). A group's first blob has none.
   */
  private async wholeToPack(options: { prefix?: string; completeOnly?: boolean }): Promise<{ key: string; candidates: string[] }[]> {
    const { groups, whole } = await this.groupsToPack(options);
    const out: { key: string; candidates: string[] }[] = [];
    for (const { keys } of groups) {
      for (const { seq, key } of keys) {
        const candidates = keys.filter((k) => k.seq < seq).map((k) => k.key);
        if (candidates.length > 0 && whole.has(key)) out.push({ key, candidates });
      }
    }
    return out;
  }

  /**
   * The groups a pass would look at, in packing order (directory, group), each with its keys once,
   * by sequence then key, and the keys stored whole. The listing is long on a fleet's
   * data directory (tens of thousands of names): the loop gives the event loop a turn now and then,
   * so a request being served is not held up behind it.
   */
  private async groupsToPack(options: { prefix?: string; completeOnly?: boolean }): Promise<{ groups: { dir: string; group: number; keys: { seq: number; key: string }[] }[]; whole: Set<string> }> {
    const whole = new Set<string>();
    if (!this.packing) return { groups: [], whole };
    const names = await this.fileNames();
    const groups = new Map<string, { dir: string; group: number; keys: { seq: number; key: string }[] }>();
    const lastGroup = new Map<string, number>();
    let seen = 0;
    for (const name of names) {
      if (++seen % YIELD_EVERY === 0) await yieldToEventLoop();
      const match = BLOB_FILE.exec(name);
      if (!match) continue;
      const key = match[1]!.split('~').join('/');
      if (name === match[1]) whole.add(key);
      const g = key.startsWith(options.prefix ?? '') ? groupOf(key) : null;
      if (!g) continue;
      lastGroup.set(g.dir, Math.max(lastGroup.get(g.dir) ?? -1, g.group));
      const id = `${g.dir}|${g.group}`;
      if (!groups.has(id)) groups.set(id, { dir: g.dir, group: g.group, keys: [] });
      const keys = groups.get(id)!.keys;
      keys.push({ seq: g.seq, key }); // twice when both forms are on disk (a pass a kill interrupted)
    }
    const out: { dir: string; group: number; keys: { seq: number; key: string }[] }[] = [];
    for (const { dir, group, keys } of [...groups.values()].sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : a.group - b.group))) {
      if (options.completeOnly && group >= lastGroup.get(dir)!) continue;
      out.push({ dir, group, keys: [...new Map(keys.map((k) => [k.key, k])).values()].sort((a, b) => a.seq - b.seq || (a.key < b.key ? -1 : 1)) });
    }
    return { groups: out, whole };
  }

  /**
   * One blob stored whole, packed against `candidates` (earlier keys of its group, oldest first):
   * the packed form written durably, then the whole file removed. The step is announced first
   * (pack-intents.ts): a delete of this blob or of a base that began before that is seen and wins
   * (the blob stays whole); one that begins after it waits for the step to end.
   */
  private async packWhole(key: string, candidates: string[]): Promise<boolean> {
    const final = this.pathOf(key);
    if (this.deletingKeys([key]).length > 0) return false;
    let bytes: Uint8Array;
    let mtime: Date;
    try {
      bytes = new Uint8Array(readFileSync(final));
      mtime = statSync(final).mtime;
    } catch {
      return false; // packed or deleted meanwhile
    }
    const deleting = new Set(this.deletingKeys(candidates.slice(-2 * WINDOW)));
    const packing = choosePacking({ key, bytes, candidates, files: this.files, deflate: this.deflate, usable: (k) => !deleting.has(k) });
    if (!packing) return false; // stays whole
    const announced = announcePacking(this.root, key, packing.bases);
    try {
      // Deleted meanwhile (both forms gone), or a delete of it or of a base under way: left whole.
      if (!existsSync(final) || this.deletingKeys([key]).length > 0 || this.anyGone(packing.bases)) return false;
      // The whole file's time kept: recovery dates a lost commit's entry by it (consistency.ts).
      await this.writeDurably(final, final + PACKED_SUFFIX, packing.file, mtime);
      packerStopPoint('step');
      if (packing.form) rememberStructure(bytes, packing.form);
      this.files.cache.set(key, bytes);
      await fs.rm(final, { force: true });
      return true;
    } finally {
      endPacking(announced);
    }
  }

  /**
   * Rewrites a packed blob whole (durably), then removes its packed form: one of them exists
   * throughout. Rewritten from its file, it keeps that file's time (what recovery dates it by).
   */
  private async materialize(key: string, bytes?: Uint8Array): Promise<void> {
    const final = this.pathOf(key);
    const mtime = bytes ? undefined : statSync(final + PACKED_SUFFIX, { throwIfNoEntry: false })?.mtime;
    await this.writeDurably(final, final, bytes ?? this.files.read(key), mtime);
    await fs.rm(final + PACKED_SUFFIX, { force: true });
  }

  private async packFor(key: string, bytes: Uint8Array): Promise<Packing | null> {
    const g = this.packing ? groupOf(key) : null;
    if (!g || bytes.byteLength > MAX_PACK_BYTES) return null;
    let known = this.known.get(g.dir);
    if (!known || known.max < g.seq - 1) known = await this.scan(g.dir);
    const candidates = known.keys.filter((k) => k.seq < g.seq && Math.floor(k.seq / GROUP) === g.group).map((k) => k.key);
    if (candidates.length === 0) return null;
    const deleting = new Set(this.deletingKeys(candidates.slice(-2 * WINDOW)));
    return choosePacking({ key, bytes, candidates, files: this.files, deflate: this.deflate, usable: (k) => !deleting.has(k) });
  }

  private deletingKeys(keys: string[]): string[] {
    return keys.filter((k) => existsSync(this.pathOf(k) + DELETING_SUFFIX));
  }

  private anyGone(bases: string[]): boolean {
    return this.deletingKeys(bases).length > 0 || bases.some((base) => !this.existsNow(base));
  }

  /** Either form of `key` is a file now. */
  private existsNow(key: string): boolean {
    const final = this.pathOf(key);
    return [final, final + PACKED_SUFFIX].some((file) => statSync(file, { throwIfNoEntry: false })?.isFile() ?? false);
  }

  /** Re-reads which keys a directory holds (at start, or when another writer got ahead of this one). */
  private async scan(dir: string): Promise<{ keys: { seq: number; key: string }[]; max: number }> {
    const keys = (await this.list(dir)).flatMap((key) => {
      const g = groupOf(key);
      return g && g.dir === dir ? [{ seq: g.seq, key }] : [];
    }).sort((a, b) => a.seq - b.seq || (a.key < b.key ? -1 : 1));
    const known = { keys, max: keys.at(-1)?.seq ?? -1 };
    this.known.set(dir, known);
    return known;
  }

  private remember(key: string): void {
    const g = groupOf(key);
    const known = g && this.known.get(g.dir);
    if (!g || !known || known.keys.some((k) => k.key === key)) return;
    known.keys.push({ seq: g.seq, key });
    if (g.seq < known.max) known.keys.sort((a, b) => a.seq - b.seq || (a.key < b.key ? -1 : 1));
    known.max = Math.max(known.max, g.seq);
  }

  private forget(key: string): void {
    const g = groupOf(key);
    const known = g && this.known.get(g.dir);
    if (known) known.keys = known.keys.filter((k) => k.key !== key);
  }

  /**
   * Group commit of directory fsyncs: a caller joins the next fsync that starts after its rename.
   * While one runs (it may have started before this caller's rename), one more is queued for all
   * who arrive meanwhile, so N concurrent puts cost about two directory fsyncs instead of N.
   */
  private syncRoot(): Promise<void> {
    if (!this.dirSyncRunning) {
      this.dirSyncRunning = this.fsyncRoot().finally(() => {
        this.dirSyncRunning = null;
      });
      return this.dirSyncRunning;
    }
    this.dirSyncQueued ??= this.dirSyncRunning.catch(() => undefined).then(() => {
      this.dirSyncQueued = null;
      return this.syncRoot();
    });
    return this.dirSyncQueued;
  }

  /** The directory descriptor stays open: each fsync is one call, not open + fsync + close. */
  private rootFd: Promise<number> | null = null;

  private async fsyncRoot(): Promise<void> {
    this.rootFd ??= openFile(this.root, 'r').then((fd) => {
      dirDescriptors.register(this, fd, this);
      return fd;
    });
    const opened = this.rootFd;
    try {
      await fsyncFd(await opened);
    } catch {
      // A stale descriptor (the directory was replaced): reopen once; a second failure propagates.
      this.rootFd = null;
      await opened.then((fd) => {
        dirDescriptors.unregister(this);
        close(fd, () => {});
      }, () => {});
      await fsyncDir(this.root);
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return asUint8Array(await fs.readFile(this.pathOf(key)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // Packed: a few small files inflated (the bases of recent reads are cached).
    return Uint8Array.from(this.files.read(key));
  }

  async exists(key: string): Promise<boolean> {
    const final = this.pathOf(key);
    for (const file of [final, final + PACKED_SUFFIX]) {
      try {
        if ((await fs.stat(file)).isFile()) return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return false;
  }

  async delete(key: string): Promise<void> {
    await this.deleteMany([key]);
  }

  /**
   * Removes the keys (an agent's blobs at once). Each is first marked as being deleted, so no new
   * blob takes it as a base; packed blobs that keep one as a base and are not deleted too are
   * rewritten whole; then the keys go. A crash at any point leaves every remaining blob readable.
   */
  async deleteMany(keys: readonly string[]): Promise<void> {
    const doomed = new Set(keys);
    const present: string[] = [];
    for (const key of doomed) if (await this.exists(key)) present.push(key);
    if (present.length === 0) return;
    for (const key of present) await fs.writeFile(this.pathOf(key) + DELETING_SUFFIX, '');
    await this.syncRoot();
    // A packer in its step (pack-intents.ts) finishes it first: its packed blob is then seen below.
    try {
      await awaitPackingOf(this.root, doomed);
    } catch (error) {
      for (const key of present) await fs.rm(this.pathOf(key) + DELETING_SUFFIX, { force: true });
      throw error;
    }
    const packed = (await fs.readdir(this.root)).filter((n) => n.endsWith(PACKED_SUFFIX)).map((n) => n.slice(0, -PACKED_SUFFIX.length).split('~').join('/'));
    const dependants = packedDependants(packed, doomed, (k) => {
      try {
        return decodePackedHeader(k, readFileSync(this.pathOf(k) + PACKED_SUFFIX)).bases;
      } catch {
        return null;
      }
    });
    for (const key of dependants) await this.materialize(key);
    for (const key of present) {
      await fs.rm(this.pathOf(key), { force: true });
      await fs.rm(this.pathOf(key) + PACKED_SUFFIX, { force: true });
      this.files.cache.drop(key);
      this.forget(key);
    }
    await this.syncRoot();
    for (const key of present) await fs.rm(this.pathOf(key) + DELETING_SUFFIX, { force: true });
  }

  /** File names back to keys (either form); temp files of writes in flight (`….tmp-…`) are not blobs yet. */
  async list(prefix = ''): Promise<string[]> {
    const keys = new Set<string>();
    let seen = 0;
    for (const name of await this.fileNames()) {
      if (++seen % YIELD_EVERY === 0) await yieldToEventLoop();
      const flat = BLOB_FILE.exec(name)?.[1];
      if (flat) keys.add(flat.split('~').join('/'));
    }
    return [...keys].filter((key) => key.startsWith(prefix)).sort();
  }

  /** Every file name in the root (none before the first put). */
  private async fileNames(): Promise<string[]> {
    try {
      return await fs.readdir(this.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }
}
