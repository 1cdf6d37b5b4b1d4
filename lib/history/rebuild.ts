/**
 * Rebuilds the history index from the ledger's blobs: wipes the index tables and replays every
 * entry, agent by agent (by id), each in (seq, kind) order — the order ingest appended them — so
 * the result equals the incremental index row for row. The whole rebuild is one IMMEDIATE
 * transaction: it either replaces the index completely or leaves it as it was, and other
 * processes wait (busy_timeout) instead of ingesting into a half-built index.
 *
 * How it stays fast (each step keeps the incremental path's semantics):
 * - blobs are read, checked against their recorded sha256, unzipped and parsed by a helper thread
 *   (rebuild-worker.ts, `prepareBlobFile`) while this thread writes; whatever the helper has not
 *   taken yet this thread prepares itself, and anything irregular (unreadable, sha256 mismatch,
 *   an archive the synchronous reader does not take) goes through the ledger's own checked path
 *   (`readEntryBytes` + the core archive reader), which raises the precise error;
 * - the fold is the incremental indexer's own (`foldEntry`) over an in-memory mirror of the
 *   agent's current state (rebuild-target.ts), with statements prepared once; `records` rows are
 *   written once per agent, at its end;
 * - `raw_objects` (content-addressed) is reconciled rather than rewritten: objects stored under a
 *   sha256 the replay meets, with the right length, are kept; the rest is written or deleted;
 * - `record_versions` rows are written over the rows with their ids (1…n, as after emptying the
 *   table) instead of into an emptied table, and rows past n deleted: SQLite leaves pages rewritten
 *   with the same bytes clean, so what the index already held right costs no WAL writes at commit;
 * - the secondary indexes of the rewritten tables are built once at the end, from the finished
 *   tables (`suspendIndexes`: dropped and re-created from their own stored SQL inside the
 *   transaction), the full-text index is written by the replay with its triggers dropped
 *   (`takeOverFts`), and foreign keys are not re-checked row by row (every row written belongs
 *   to an agent the replay selected by joining `agents`);
 * - the page cache is large enough for the whole rewrite for the duration (no spilling to the WAL
 *   midway, in-memory sorts for the index builds).
 */
import path from 'node:path';
import { packageRoot } from '@/lib/package-root';
import { workerScript } from '@/lib/worker-script';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { FsBlobStore, LedgerError, type Ledger } from '@/lib/ledger';
import { foldEntry } from './indexer';
import { loadPreparedEntry } from './load-entry';
import { prepareBlobFile, type BlobJob, type PreparedEntry } from './ledger-blob';
import { RebuildWriter, type AgentRebuildTarget } from './rebuild-target';
import { decodeChunk, type ChunkAnswer, type ChunkRequest, type HelperSetup } from './rebuild-worker';

export interface RebuildProgress {
  done: number;
  total: number;
}

export interface RebuildResult {
  entries: number;
  record_versions: number;
}

interface EntryRow {
  rowid: number;
  agent_id: string;
  seq: number;
  kind: 'delta' | 'snapshot';
  blob_key: string;
  size_bytes: number;
  sha256: string;
  created_at: string;
  /** The counts stored on the entry (written again only where the replay's differ). */
  creates: number;
  updates: number;
  deletes: number;
  moves: number;
  raw_changed: number;
  raw_deleted: number;
}

/**
 * Entries per message to the helper thread, and chunks it may hold at once: more at the start
 * (before it is told which raw objects are stored, and after), while this thread is busy reading
 * the stored objects and wiping the index and cannot hand it more.
 */
const CHUNK = 16;
const IN_FLIGHT = 4;
const EARLY_IN_FLIGHT = 16;
const FIRST_IN_FLIGHT = 64;
const REBUILD_MMAP_BYTES = 1 << 30;
/** Page cache for the duration of a rebuild (negative: KiB), 512 MiB at most, allocated as used. */
const REBUILD_CACHE_SIZE = -(512 * 1024);
/** FTS5 pending-terms memory during the full-text build, and FTS5's default (FTS5_DEFAULT_HASHSIZE). */
const FTS_REBUILD_HASHSIZE = 64 << 20;
const FTS_DEFAULT_HASHSIZE = 1 << 20;

/** This module's directory in the sources (the CLI may run from a bundle elsewhere). */
const HERE = path.join(packageRoot(), 'lib', 'history');

/**
 * The helper thread's code: rebuild-worker.ts and the few modules it imports, bundled once per
 * process (lib/worker-script.ts): the first rebuild of a process reads the stored raw objects and
 * wipes the index meanwhile instead of waiting for the bundle (a fifth of a second).
 */
const helperScript = workerScript(path.join(HERE, 'rebuild-worker.ts'));

type Helper = { worker: Worker; port: MessagePort; signal: Int32Array };

/** Starts the helper thread; null if it cannot (the rebuild then prepares every blob itself). */
function startHelper(script: string | null): Helper | null {
  if (script === null) return null;
  try {
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const channel = new MessageChannel();
    const worker = new Worker(script, {
      eval: true,
      execArgv: [],
      workerData: { lineageRebuildWorker: true, port: channel.port2, signal },
      transferList: [channel.port2],
    });
    worker.unref();
    return { worker, port: channel.port1, signal };
  } catch {
    return null;
  }
}

function stopHelper(helper: Helper): void {
  helper.port.close();
  void helper.worker.terminate();
}

/**
 * Hands out prepared entries in order. Chunks of entries are prepared either by the helper thread
 * (it is given the next free chunks, a few at a time, from the start: messages wait on its port
 * while it boots, so it begins as soon as it is up) or by this thread when it
 * reaches a chunk nobody has taken. Waiting for the helper is synchronous (Atomics.wait), with
 * a short timeout after which events are let through, so a helper that died is noticed and its
 * chunks are taken back.
 */
class Preparer {
  private readonly state: Uint8Array; // 0 free, 1 with the helper, 2 prepared
  private readonly prepared: (PreparedEntry | null | undefined)[];
  /**
   * The helper's answers, decoded only when their chunk comes up: a decoded chunk is a graph of
   * small objects, which the garbage collector would keep copying while it waits (an answer is
   * one string and a typed array).
   */
  private readonly answers: (ChunkAnswer | undefined)[];
  private nextFree = 0;
  private inFlight = 0;
  private helper: Helper | null = null;
  private helperDead = false;
  private stored: ReadonlySet<string> | null = null;

  constructor(private readonly jobs: (BlobJob | null)[], helper: Helper | null) {
    this.state = new Uint8Array(Math.ceil(jobs.length / CHUNK));
    this.prepared = new Array(jobs.length);
    this.answers = new Array(this.state.length);
    if (helper) this.attach(helper);
  }

  /**
   * Gives the helper its first chunks (the free ones: a helper started late, after its code was
   * bundled, begins where this thread has not yet been).
   */
  attach(helper: Helper): void {
    this.helper = helper;
    helper.worker.on('error', () => { this.helperDead = true; });
    helper.worker.on('exit', () => { this.helperDead = true; });
    if (this.stored) helper.port.postMessage({ stored: [...this.stored] } satisfies HelperSetup);
    this.pump(this.stored ? FIRST_IN_FLIGHT : EARLY_IN_FLIGHT);
  }

  /** The raw objects stored already: prepared raw files with these sha256 may come without bytes. */
  setStored(stored: ReadonlySet<string>): void {
    this.stored = stored;
    this.helper?.port.postMessage({ stored: [...stored] } satisfies HelperSetup);
    this.pump(FIRST_IN_FLIGHT);
  }

  /** The prepared entry `i`, or null when it must take the checked path. */
  async get(i: number): Promise<PreparedEntry | null> {
    const chunk = Math.floor(i / CHUNK);
    this.pump();
    while (this.state[chunk] !== 2) {
      if (this.state[chunk] === 0) {
        this.prepareHere(chunk);
      } else if (!this.prepareNextFree()) {
        // The helper has it and nothing else is left to do here meanwhile.
        await this.waitForHelper();
      }
      this.pump();
    }
    const answer = this.answers[chunk];
    if (answer) {
      this.answers[chunk] = undefined;
      const first = chunk * CHUNK;
      decodeChunk(answer, Math.min(CHUNK, this.jobs.length - first)).forEach((p, k) => { this.prepared[first + k] = p; });
    }
    const out = this.prepared[i] ?? null;
    this.prepared[i] = undefined;
    return out;
  }

  /** While the helper works on the chunk this thread needs, this thread prepares a later one. */
  private prepareNextFree(): boolean {
    while (this.nextFree < this.state.length && this.state[this.nextFree] !== 0) this.nextFree++;
    if (this.nextFree >= this.state.length) return false;
    this.prepareHere(this.nextFree);
    return true;
  }

  close(): void {
    if (!this.helper) return;
    stopHelper(this.helper);
    this.helper = null;
  }

  private prepareHere(chunk: number): void {
    if (!this.stored) throw new Error('setStored must come first');
    this.state[chunk] = 2;
    for (let i = chunk * CHUNK; i < Math.min(this.jobs.length, (chunk + 1) * CHUNK); i++) {
      const job = this.jobs[i];
      this.prepared[i] = job ? prepareBlobFile(job, this.stored) : null;
    }
  }

  /** Takes the helper's answers and gives it more chunks. */
  private pump(limit = IN_FLIGHT): void {
    const helper = this.helper;
    if (!helper) return;
    for (let message = receiveMessageOnPort(helper.port); message; message = receiveMessageOnPort(helper.port)) {
      const answer = message.message as ChunkAnswer;
      if (this.state[answer.chunk] !== 1) continue;
      this.answers[answer.chunk] = answer;
      this.state[answer.chunk] = 2;
      this.inFlight--;
    }
    if (this.helperDead) return;
    while (this.inFlight < limit) {
      while (this.nextFree < this.state.length && this.state[this.nextFree] !== 0) this.nextFree++;
      if (this.nextFree >= this.state.length) return;
      const chunk = this.nextFree;
      this.state[chunk] = 1;
      this.inFlight++;
      const jobs = this.jobs.slice(chunk * CHUNK, (chunk + 1) * CHUNK).map((j) => j ?? { file: '', size: 0, sha256: '', kind: 'delta' as const });
      helper.port.postMessage({ chunk, jobs } satisfies ChunkRequest);
    }
  }

  private async waitForHelper(): Promise<void> {
    const helper = this.helper!;
    const seen = Atomics.load(helper.signal, 0);
    this.pump();
    if (this.inFlight === 0) return;
    if (Atomics.wait(helper.signal, 0, seen, 25) === 'timed-out') {
      await new Promise((resolve) => setImmediate(resolve)); // lets 'error' / 'exit' through
      if (this.helperDead) {
        // Take every chunk the helper held back; this thread prepares them.
        for (let c = 0; c < this.state.length; c++) if (this.state[c] === 1) this.state[c] = 0;
        this.inFlight = 0;
        this.nextFree = 0;
        this.close();
      }
    }
  }
}

/**
 * The full-text index is written by the replay itself (`RebuildWriter.insertVersion`: each
 * version's content under its id, as the incremental indexer writes them) rather than by an FTS5
 * 'rebuild' after the replay; its delete and update triggers are dropped for the
 * duration of the transaction and re-created from their own stored SQL, so a rollback restores
 * them and the schema never drifts from the migration; the index is emptied first ('delete-all',
 * the index of a contentless table is not touched by deleting the versions, its triggers dropped). Written
 * during the replay, its tokenizing overlaps the helper thread's blob parsing instead of adding
 * to the transaction's single-threaded end; the segments are the same as a 'rebuild' writes
 * (both insert every row in id order).
 *
 * The replay runs with a larger FTS5 'hashsize' (the memory of pending terms before they are
 * written out as a segment; 1 MiB by default): the whole index is then written as one or a few
 * segments instead of dozens that automerge keeps merging meanwhile (a fifth of the build's time
 * here). The option is a row in the table's `_config` shadow table; it is set back exactly as it
 * was before the transaction ends (value restored, or the row removed again), so the incremental
 * path and every other connection see the same configuration as before.
 */
export function takeOverFts(ledger: Ledger): () => void {
  const { sqlite } = ledger.db;
  const triggers = sqlite.prepare(
    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'record_versions' AND sql LIKE '%record_versions_words%'",
  ).all() as { name: string; sql: string }[];
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name.replace(/"/g, '""')}"`);
  const setHashSize = (bytes: number) => {
    if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new Error(`bad FTS5 hashsize ${bytes}`);
    // An integer literal: FTS5 takes only an INTEGER value (a bound JS number arrives as REAL).
    sqlite.exec(`INSERT INTO record_versions_words(record_versions_words, rank) VALUES ('hashsize', ${bytes})`);
  };
  const before = sqlite.prepare("SELECT v FROM record_versions_words_config WHERE k = 'hashsize'").pluck().get() as number | undefined;
  setHashSize(FTS_REBUILD_HASHSIZE);
  sqlite.exec("INSERT INTO record_versions_words(record_versions_words) VALUES ('delete-all')");
  return () => {
    // Setting the option tells every connection to reload it; the default first, so this one
    // holds the default too when the row then goes (shadow tables are read-only outside unsafe mode).
    setHashSize(before ?? FTS_DEFAULT_HASHSIZE);
    if (before === undefined) {
      sqlite.unsafeMode(true);
      try {
        sqlite.exec("DELETE FROM record_versions_words_config WHERE k = 'hashsize'");
      } finally {
        sqlite.unsafeMode(false);
      }
    }
    for (const t of triggers) sqlite.exec(t.sql);
  };
}

/** The tables the rebuild rewrites, whose secondary indexes it builds once at the end. */
const REBUILT_TABLES = ['record_versions', 'records', 'raw_file_versions'] as const;

/**
 * The secondary indexes of the rewritten tables are built once at the end instead of row by row:
 * they are dropped for the duration of the transaction and re-created from their own stored SQL
 * (a sort of the finished table instead of one B-tree insert per row per index), so — as with the
 * FTS triggers — a rollback restores them and the schema never drifts from the migration. A
 * UNIQUE index is checked when it is re-created: a duplicate fails the rebuild (and rolls it
 * back) as it would have failed the row's insert. Primary keys are not touched.
 */
export function suspendIndexes(ledger: Ledger): () => void {
  const { sqlite } = ledger.db;
  const indexes = sqlite.prepare(
    `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
       AND tbl_name IN (${REBUILT_TABLES.map(() => '?').join(', ')}) ORDER BY name`,
  ).all(...REBUILT_TABLES) as { name: string; sql: string }[];
  for (const i of indexes) sqlite.exec(`DROP INDEX "${i.name.replace(/"/g, '""')}"`);
  return () => {
    for (const i of indexes) sqlite.exec(i.sql);
  };
}

/**
 * Empties the index tables (`record_versions` is written over by id and `raw_objects` reconciled
 * by the writer instead: see RebuildWriter).
 * The counts of the entries the replay visits are set entry by entry where they differ; the others
 * (entries of no registered agent, which the replay does not select) are zeroed here.
 */
export function wipe(ledger: Ledger): void {
  ledger.db.sqlite.exec(`
    DELETE FROM records;
    DELETE FROM record_facets;
    DELETE FROM record_facet_changes;
    DELETE FROM raw_file_versions;
    DELETE FROM index_pending;
    UPDATE ledger_entries SET creates = 0, updates = 0, deletes = 0, moves = 0, raw_changed = 0, raw_deleted = 0
      WHERE NOT EXISTS (SELECT 1 FROM agents a WHERE a.id = ledger_entries.agent_id)
        AND (creates <> 0 OR updates <> 0 OR deletes <> 0 OR moves <> 0 OR raw_changed <> 0 OR raw_deleted <> 0);`);
}

/**
 * The connection settings of a rebuild, set for its duration; returns what puts them back.
 * Foreign keys are not re-checked row by row (every row written belongs to an agent the replay
 * selected by joining `agents`).
 */
export function rebuildPragmas(ledger: Ledger): () => void {
  const { sqlite } = ledger.db;
  const foreignKeys = sqlite.pragma('foreign_keys', { simple: true }) as number;
  sqlite.pragma('foreign_keys = OFF');
  // Memory-mapped reads for the duration: the wipe, the FTS build and the commit's checkpoint read
  // the whole index back (about 15% less main-thread time on a 10,000-entry ledger).
  const mmapSize = sqlite.pragma('mmap_size', { simple: true }) as number;
  sqlite.pragma(`mmap_size = ${REBUILD_MMAP_BYTES}`);
  // A page cache that holds the rebuilt tables, so the transaction does not spill dirty pages to
  // the WAL midway, and in-memory sorting for the index builds at the end.
  const cacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
  sqlite.pragma(`cache_size = ${REBUILD_CACHE_SIZE}`);
  const tempStore = sqlite.pragma('temp_store', { simple: true }) as number;
  sqlite.pragma('temp_store = MEMORY');
  return () => {
    sqlite.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
    sqlite.pragma(`mmap_size = ${mmapSize}`);
    sqlite.pragma(`cache_size = ${cacheSize}`);
    sqlite.pragma(`temp_store = ${tempStore}`);
  };
}

/** Wipes and replays the whole index; `onProgress` is called after each entry. */
export async function rebuildIndex(params: { ledger: Ledger; onProgress?: (p: RebuildProgress) => void }): Promise<RebuildResult> {
  const { ledger } = params;
  const { sqlite } = ledger.db;
  if (sqlite.inTransaction) throw new LedgerError('busy', 'a transaction is already open on this database; cannot rebuild now');
  const restorePragmas = rebuildPragmas(ledger);
  let helper: Helper | null = null;
  let preparer: Preparer | null = null;
  try {
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      const entries = sqlite.prepare(`SELECT e.rowid AS rowid, e.agent_id, e.seq, e.kind, e.blob_key, e.size_bytes, e.sha256, e.created_at,
          e.creates, e.updates, e.deletes, e.moves, e.raw_changed, e.raw_deleted
        FROM ledger_entries e JOIN agents a ON a.id = e.agent_id ORDER BY e.agent_id, e.seq, e.kind`).all() as EntryRow[];
      const store = ledger.blobs instanceof FsBlobStore ? ledger.blobs : null;
      const jobs = entries.map((e): BlobJob | null => (store ? { file: store.pathOf(e.blob_key), root: store.root, key: e.blob_key, size: e.size_bytes, sha256: e.sha256, kind: e.kind } : null));
      // The helper thread boots and starts on the first chunks while this thread reads the stored
      // raw objects (until it is told which are stored, it sends every raw file's bytes).
      const script = store !== null && jobs.length > CHUNK ? helperScript() : null;
      helper = typeof script === 'string' ? startHelper(script) : null;
      preparer = new Preparer(jobs, helper);
      const writer = new RebuildWriter(sqlite);
      preparer.setStored(writer.stored);
      const restoreFts = takeOverFts(ledger);
      const restoreIndexes = suspendIndexes(ledger);
      wipe(ledger);
      if (script !== null && typeof script !== 'string') {
        // The first rebuild of this process: the helper's code was being bundled meanwhile.
        helper = startHelper(await script);
        if (helper) preparer.attach(helper);
      }
      const setCounts = sqlite.prepare(
        'UPDATE ledger_entries SET creates = ?, updates = ?, deletes = ?, moves = ?, raw_changed = ?, raw_deleted = ? WHERE rowid = ?');
      const total = entries.length;
      let target: AgentRebuildTarget | null = null;
      for (let i = 0; i < total; i++) {
        const entry = entries[i]!;
        const prepared = (await preparer.get(i)) ?? (await loadPreparedEntry(ledger, entry, { fast: false }));
        if (target?.agentId !== entry.agent_id) {
          target?.finish();
          target = writer.agent(entry.agent_id);
        }
        const c = foldEntry(target, { agentId: entry.agent_id, seq: entry.seq, syncedAt: entry.created_at }, prepared);
        // Only counts that differ are written: rewriting a row with its own values would still
        // dirty its page (every page of the table, in a rebuild that changes nothing there).
        if (c.creates !== entry.creates || c.updates !== entry.updates || c.deletes !== entry.deletes || c.moves !== entry.moves
          || c.raw_changed !== entry.raw_changed || c.raw_deleted !== entry.raw_deleted) {
          setCounts.run(c.creates, c.updates, c.deletes, c.moves, c.raw_changed, c.raw_deleted, entry.rowid);
        }
        params.onProgress?.({ done: i + 1, total });
      }
      target?.finish();
      writer.finish();
      restoreIndexes();
      restoreFts();
      const versions = (sqlite.prepare('SELECT count(*) AS n FROM record_versions').get() as { n: number }).n;
      sqlite.exec('COMMIT');
      return { entries: total, record_versions: versions };
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw error;
    }
  } finally {
    if (preparer) preparer.close();
    else if (helper) stopHelper(helper);
    restorePragmas();
  }
}
