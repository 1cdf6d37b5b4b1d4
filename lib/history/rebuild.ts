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
 * - the full-text index is filled once at the end, and foreign keys are not re-checked row by
 *   row (every row written belongs to an agent the replay selected by joining `agents`).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { readDelta, readSnapshot } from '@/lib/core/archive';
import { FsBlobStore, LedgerError, readEntryBytes, type Ledger } from '@/lib/ledger';
import { foldEntry } from './indexer';
import { prepareArchive, prepareBlobFile, type BlobJob, type PreparedEntry } from './ledger-blob';
import { RebuildWriter, type AgentRebuildTarget } from './rebuild-target';
import { decodeChunk, type ChunkAnswer, type ChunkRequest } from './rebuild-worker';

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
  sha256: string;
  created_at: string;
}

/** Entries per message to the helper thread, and chunks it may hold at once. */
const CHUNK = 16;
const IN_FLIGHT = 4;
const REBUILD_MMAP_BYTES = 1 << 30;

/** The ledger's checked path: blob store read, sha256 check, core archive reader. */
async function loadChecked(ledger: Ledger, entry: EntryRow): Promise<PreparedEntry> {
  const bytes = await readEntryBytes({ ledger, entry });
  return entry.kind === 'delta'
    ? prepareArchive({ kind: 'delta', archive: await readDelta(bytes) })
    : prepareArchive({ kind: 'snapshot', archive: await readSnapshot(bytes) });
}

const HERE = path.dirname(fileURLToPath(import.meta.url));

/**
 * The helper thread's code: rebuild-worker.ts and the few modules it imports, bundled into one
 * CommonJS script by esbuild (the TypeScript toolchain tsx runs the CLI with), so the thread starts
 * in milliseconds instead of loading a TypeScript loader. Built once per process.
 */
let helperSource: string | null = null;
function helperScript(): string {
  if (helperSource === null) {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
    const esbuild = fromTsx('esbuild') as typeof import('esbuild');
    const out = esbuild.buildSync({
      entryPoints: [path.join(HERE, 'rebuild-worker.ts')],
      tsconfig: path.resolve(HERE, '../../tsconfig.json'),
      bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent',
    });
    helperSource = out.outputFiles[0]!.text;
  }
  return helperSource;
}

/** Starts the helper thread; null if it cannot (the rebuild then prepares every blob itself). */
function startHelper(stored: ReadonlySet<string>): { worker: Worker; port: MessagePort; signal: Int32Array } | null {
  try {
    const signal = new Int32Array(new SharedArrayBuffer(8));
    const channel = new MessageChannel();
    const worker = new Worker(helperScript(), {
      eval: true,
      execArgv: [],
      workerData: { lineageRebuildWorker: true, port: channel.port2, signal, stored: [...stored] },
      transferList: [channel.port2],
    });
    worker.unref();
    return { worker, port: channel.port1, signal };
  } catch {
    return null;
  }
}

/**
 * Hands out prepared entries in order. Chunks of entries are prepared either by the helper thread
 * (it is given the next free chunks, a few at a time, once it is up) or by this thread when it
 * reaches a chunk nobody has taken. Waiting for the helper is synchronous (Atomics.wait), with
 * a short timeout after which events are let through, so a helper that died is noticed and its
 * chunks are taken back.
 */
class Preparer {
  private readonly state: Uint8Array; // 0 free, 1 with the helper, 2 prepared
  private readonly prepared: (PreparedEntry | null | undefined)[];
  private nextFree = 0;
  private inFlight = 0;
  private helper: ReturnType<typeof startHelper>;
  private helperDead = false;

  constructor(private readonly jobs: (BlobJob | null)[], useHelper: boolean, private readonly stored: ReadonlySet<string>) {
    this.state = new Uint8Array(Math.ceil(jobs.length / CHUNK));
    this.prepared = new Array(jobs.length);
    this.helper = useHelper && this.state.length > 1 ? startHelper(stored) : null;
    this.helper?.worker.on('error', () => { this.helperDead = true; });
    this.helper?.worker.on('exit', () => { this.helperDead = true; });
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
    this.helper.port.close();
    void this.helper.worker.terminate();
    this.helper = null;
  }

  private prepareHere(chunk: number): void {
    this.state[chunk] = 2;
    for (let i = chunk * CHUNK; i < Math.min(this.jobs.length, (chunk + 1) * CHUNK); i++) {
      const job = this.jobs[i];
      this.prepared[i] = job ? prepareBlobFile(job, this.stored) : null;
    }
  }

  /** Takes the helper's answers and gives it more chunks. */
  private pump(): void {
    const helper = this.helper;
    if (!helper) return;
    for (let message = receiveMessageOnPort(helper.port); message; message = receiveMessageOnPort(helper.port)) {
      const answer = message.message as ChunkAnswer;
      if (this.state[answer.chunk] !== 1) continue;
      decodeChunk(answer).forEach((p, k) => { this.prepared[answer.chunk * CHUNK + k] = p; });
      this.state[answer.chunk] = 2;
      this.inFlight--;
    }
    if (Atomics.load(helper.signal, 1) !== 1 || this.helperDead) return;
    while (this.inFlight < IN_FLIGHT) {
      while (this.nextFree < this.state.length && this.state[this.nextFree] !== 0) this.nextFree++;
      if (this.nextFree >= this.state.length) return;
      const chunk = this.nextFree;
      this.state[chunk] = 1;
      this.inFlight++;
      const jobs = this.jobs.slice(chunk * CHUNK, (chunk + 1) * CHUNK).map((j) => j ?? { file: '', sha256: '', kind: 'delta' as const });
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
 * The full-text index is rebuilt once at the end instead of row by row through its triggers
 * (which made a rebuild spend most of its time in FTS maintenance): the triggers are dropped for
 * the duration of the transaction and re-created from their own stored SQL, so a rollback restores
 * them and the schema never drifts from the migration.
 */
function suspendFtsTriggers(ledger: Ledger): () => void {
  const { sqlite } = ledger.db;
  const triggers = sqlite.prepare(
    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'record_versions' AND sql LIKE '%record_versions_fts%'",
  ).all() as { name: string; sql: string }[];
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name.replace(/"/g, '""')}"`);
  // No 'delete-all' first: 'rebuild' empties the full-text index itself.
  return () => {
    sqlite.exec("INSERT INTO record_versions_fts(record_versions_fts) VALUES ('rebuild')");
    for (const t of triggers) sqlite.exec(t.sql);
  };
}

/** Empties the index tables (`raw_objects` is reconciled by the writer instead: see RebuildWriter). */
function wipe(ledger: Ledger): void {
  ledger.db.sqlite.exec(`
    DELETE FROM record_versions;
    DELETE FROM records;
    DELETE FROM raw_file_versions;
    UPDATE ledger_entries SET creates = 0, updates = 0, deletes = 0, raw_changed = 0, raw_deleted = 0;`);
}

/** Wipes and replays the whole index; `onProgress` is called after each entry. */
export async function rebuildIndex(params: { ledger: Ledger; onProgress?: (p: RebuildProgress) => void }): Promise<RebuildResult> {
  const { ledger } = params;
  const { sqlite } = ledger.db;
  if (sqlite.inTransaction) throw new LedgerError('busy', 'a transaction is already open on this database; cannot rebuild now');
  const foreignKeys = sqlite.pragma('foreign_keys', { simple: true }) as number;
  sqlite.pragma('foreign_keys = OFF');
  // Memory-mapped reads for the duration: the wipe, the FTS build and the commit's checkpoint read
  // the whole index back (about 15% less main-thread time on a 10,000-entry ledger).
  const mmapSize = sqlite.pragma('mmap_size', { simple: true }) as number;
  sqlite.pragma(`mmap_size = ${REBUILD_MMAP_BYTES}`);
  let preparer: Preparer | null = null;
  try {
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      const entries = sqlite.prepare(`SELECT e.rowid AS rowid, e.agent_id, e.seq, e.kind, e.blob_key, e.sha256, e.created_at
        FROM ledger_entries e JOIN agents a ON a.id = e.agent_id ORDER BY e.agent_id, e.seq, e.kind`).all() as EntryRow[];
      const store = ledger.blobs instanceof FsBlobStore ? ledger.blobs : null;
      const jobs = entries.map((e): BlobJob | null => (store ? { file: store.pathOf(e.blob_key), sha256: e.sha256, kind: e.kind } : null));
      const writer = new RebuildWriter(sqlite);
      preparer = new Preparer(jobs, store !== null, writer.stored);
      const restoreFts = suspendFtsTriggers(ledger);
      wipe(ledger);
      const setCounts = sqlite.prepare(
        'UPDATE ledger_entries SET creates = ?, updates = ?, deletes = ?, raw_changed = ?, raw_deleted = ? WHERE rowid = ?');
      const total = entries.length;
      let target: AgentRebuildTarget | null = null;
      for (let i = 0; i < total; i++) {
        const entry = entries[i]!;
        const prepared = (await preparer.get(i)) ?? (await loadChecked(ledger, entry));
        if (target?.agentId !== entry.agent_id) {
          target?.finish();
          target = writer.agent(entry.agent_id);
        }
        const c = foldEntry(target, { agentId: entry.agent_id, seq: entry.seq, syncedAt: entry.created_at }, prepared);
        setCounts.run(c.creates, c.updates, c.deletes, c.raw_changed, c.raw_deleted, entry.rowid);
        params.onProgress?.({ done: i + 1, total });
      }
      target?.finish();
      writer.finishObjects();
      restoreFts();
      const versions = (sqlite.prepare('SELECT count(*) AS n FROM record_versions').get() as { n: number }).n;
      sqlite.exec('COMMIT');
      return { entries: total, record_versions: versions };
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw error;
    }
  } finally {
    preparer?.close();
    sqlite.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
    sqlite.pragma(`mmap_size = ${mmapSize}`);
  }
}
