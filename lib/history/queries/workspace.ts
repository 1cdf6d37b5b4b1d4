import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import tar from 'tar-stream';
import type { LineageDb } from '@/db/client';
import { isRuntimeSidecar } from '@/lib/adapters/shared/sync-marker';
import { writeSnapshot } from '@/lib/core/archive';
import { asUint8Array } from '@/lib/core/bytes';
import { foldSnapshot } from '@/lib/core/restore';
import type { LineageStorage } from '@/lib/storage/types';
import { liveRawFiles } from '../current-state';
import { databaseRuntime } from './database-runtime';
import { liveFilePages, type DownloadFile } from './workspace-pages';
import { zipStream } from './zip-stream';
import { assertSequence, findAgent, type TenantScope } from './common';

export interface WorkspaceFileInfo {
  path: string;
  size: number;
  sha256: string;
  /** Sequence at which this content was written. */
  changed_seq: number;
  /**
   * Present (true) when this content was rendered from the records of a record-only delta (the
   * reference CLI sends no raw files): what the records say the file holds, not its bytes.
   */
  reconstructed?: true;
}

/**
 * The workspace file tree at `seq`: per path, its latest version at or before `seq`, unless deleted.
 * One indexed query whose cost grows with the number of paths, not with `seq`. Null for an unknown agent.
 */
export function getWorkspaceTree(params: { db: LineageDb; agentId: string; seq: number; tenantId?: TenantScope }):
  { seq: number; files: WorkspaceFileInfo[] } | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const rendered = reconstructedVersions(params.db, agent.id, params.seq);
  const live = liveRawFiles(params.db.db, agent.id, params.seq).filter(treeFileOf(agent.source_runtime));
  const files = live.map((f): WorkspaceFileInfo => ({
    path: f.path, size: f.size, sha256: f.sha256, changed_seq: f.seq,
    ...(rendered.has(`${f.seq}\n${f.path}`) ? { reconstructed: true as const } : {}),
  }));
  return { seq: params.seq, files };
}

/**
 * Which raw paths the tree lists (shared with the PostgreSQL verb): a runtime's schema sidecar
 * rides in the raw channel but is no workspace file — restore (and so the ZeroClaw/Hermes
 * downloads) leave it out, and so does the tree.
 */
export function treeFileOf(sourceRuntime: string | null): (file: { path: string }) => boolean {
  const sidecarsHidden = databaseRuntime(sourceRuntime) !== null;
  return (file) => !(sidecarsHidden && isRuntimeSidecar(file.path));
}

/** `seq\npath` of every version up to `seq` rendered from records (few: record-only deltas only). */
function reconstructedVersions(db: LineageDb, agentId: string, seq: number): Set<string> {
  const rows = db.db.all<{ seq: number; path: string }>(sql`
    SELECT seq, path FROM raw_file_versions WHERE agent_id = ${agentId} AND seq <= ${seq} AND reconstructed = 1`);
  return new Set(rows.map((r) => `${r.seq}\n${r.path}`));
}

/** One file's bytes at `seq`, or null when the path does not exist then (or the agent is unknown). */
export function getWorkspaceFile(params: { db: LineageDb; agentId: string; seq: number; path: string; tenantId?: TenantScope }): Uint8Array | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const row = params.db.db.get<{ data: Buffer } | undefined>(sql`
    SELECT o.data FROM raw_file_versions v JOIN raw_objects o ON o.sha256 = v.sha256
    WHERE v.rowid = (
      SELECT w.rowid FROM raw_file_versions w WHERE w.agent_id = ${agent.id} AND w.path = ${params.path} AND w.seq <= ${params.seq}
      ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1)
    AND v.deleted = 0`);
  return row ? asUint8Array(row.data) : null;
}

/** Sync time of the last entry at `seq`: the deterministic mtime of files in downloads. */
export function sequenceTime(db: LineageDb, agentId: string, seq: number): Date {
  const row = db.db.get<{ t: string } | undefined>(sql`
    SELECT created_at AS t FROM ledger_entries WHERE agent_id = ${agentId} AND seq = ${seq} ORDER BY kind DESC LIMIT 1`);
  return new Date(row?.t ?? 0);
}

/**
 * The workspace at `seq` as a `.tar.gz` or `.zip` stream, byte-exact file contents, paths relative
 * to the workspace root, every mtime = the sequence's sync time, so the same sequence always gives
 * the same bytes. Both stream in time linear in the number of files, the tree and the contents read
 * a page at a time (workspace-pages.ts), in batches that yield to the event loop (zip-stream.ts,
 * tar below). Null for an unknown agent.
 */
export function streamWorkspaceArchive(params: { db: LineageDb; agentId: string; seq: number; format: 'tar.gz' | 'zip'; tenantId?: TenantScope }): Readable | null {
  const agent = findAgent(params.db, params.agentId, params.tenantId);
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const mtime = sequenceTime(params.db, agent.id, params.seq);
  const pages = liveFilePages(params.db, agent.id, params.seq);
  return params.format === 'zip' ? zipStream({ pages, mtime }) : tarGzStream(pages, mtime);
}

/**
 * tar-stream's pack, fed a page of entries per event-loop turn, gzipped by zlib's stream (its
 * work runs on the thread pool) in 256 KiB chunks: large chunks keep async zlib as fast as one
 * gzipSync, without holding the event loop for the whole workspace.
 */
export function tarGzStream(pages: Iterator<DownloadFile[]> | AsyncIterator<DownloadFile[]>, mtime: Date): Readable {
  const pack = tar.pack();
  const gzip = zlib.createGzip({ level: 6, chunkSize: 256 * 1024 });
  const out = new PassThrough();
  pack.on('error', (e: Error) => out.destroy(e));
  gzip.on('error', (e: Error) => out.destroy(e));
  pack.pipe(gzip).pipe(out);
  const write = (page: IteratorResult<DownloadFile[]>) => {
    if (page.done) return void pack.finalize();
    for (const file of page.value) {
      pack.entry({ name: file.name, size: file.data.byteLength, mtime, mode: 0o644, uid: 0, gid: 0, uname: '', gname: '', type: 'file' }, file.data);
    }
    setImmediate(feed);
  };
  const feed = () => {
    try {
      // A page from the database at once, or one the storage reads asynchronously (scale-out).
      const page = pages.next();
      if (page instanceof Promise) page.then(write).catch((error: Error) => out.destroy(error));
      else write(page);
    } catch (error) {
      out.destroy(error as Error);
    }
  };
  feed();
  return out;
}

/** What the downloads read: verbs of the storage seam (lib/storage/types.ts), so they run on either backend. */
export type DownloadSource = Pick<LineageStorage, 'getAgent' | 'listEntries' | 'restorePlan' | 'readEntryBytes' | 'readPlanArchives' | 'downloadFiles'>;

/** `sequenceTime` from the ledger's entries: the sync time of the entry at `seq` (the snapshot when a rollover sits there too). */
export async function sequenceTimeOf(storage: DownloadSource, agentId: string, seq: number): Promise<Date> {
  const entries = await storage.listEntries({ agentId, sinceSeq: seq - 1, upToSeq: seq });
  return new Date(entries.at(-1)?.created_at ?? 0);
}

/**
 * The `.alf` at `seq`: the restore fold (CONTRACT §6) of the largest snapshot ≤ seq and the deltas
 * after it, stamped with the sequence's sync time so it is deterministic. With no delta to fold the
 * stored snapshot bytes are returned as they were uploaded.
 */
export async function workspaceAlfAt(params: { storage: DownloadSource; agentId: string; seq: number; tenantId?: TenantScope }): Promise<Uint8Array> {
  const { storage } = params;
  const plan = await storage.restorePlan({ agentId: params.agentId, upToSequence: params.seq, tenantId: params.tenantId });
  const snapshotBytes = await storage.readEntryBytes({ entry: plan.snapshot });
  if (plan.deltas.length === 0) return snapshotBytes;
  const archives = await storage.readPlanArchives({ plan });
  const now = await sequenceTimeOf(storage, plan.agentId, plan.sequence);
  return writeSnapshot(foldSnapshot({ ...archives, now }), { today: now.toISOString().slice(0, 10) });
}
