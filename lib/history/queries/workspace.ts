import { PassThrough, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import tar from 'tar-stream';
import yazl from 'yazl';
import type { LineageDb } from '@/db/client';
import { writeSnapshot } from '@/lib/core/archive';
import { asUint8Array } from '@/lib/core/bytes';
import { foldSnapshot } from '@/lib/core/restore';
import { readEntryBytes, readPlanArchives, restorePlan, type Ledger } from '@/lib/ledger';
import { liveRawFiles } from '../current-state';
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
  const files = liveRawFiles(params.db.db, agent.id, params.seq).map((f): WorkspaceFileInfo => ({
    path: f.path, size: f.size, sha256: f.sha256, changed_seq: f.seq,
    ...(rendered.has(`${f.seq}\n${f.path}`) ? { reconstructed: true as const } : {}),
  }));
  return { seq: params.seq, files };
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
function sequenceTime(db: LineageDb, agentId: string, seq: number): Date {
  const row = db.db.get<{ t: string } | undefined>(sql`
    SELECT created_at AS t FROM ledger_entries WHERE agent_id = ${agentId} AND seq = ${seq} ORDER BY kind DESC LIMIT 1`);
  return new Date(row?.t ?? 0);
}

/** Every file's bytes in one query (not one round trip per file), keyed by sha256. */
function fileContents(db: LineageDb, files: readonly WorkspaceFileInfo[]): (sha256: string) => Buffer {
  const shas = [...new Set(files.map((f) => f.sha256))];
  const rows = shas.length === 0 ? [] : db.db.all<{ sha256: string; data: Buffer }>(sql`
    SELECT sha256, data FROM raw_objects WHERE sha256 IN (SELECT value FROM json_each(${JSON.stringify(shas)}))`);
  const bySha = new Map(rows.map((r) => [r.sha256, r.data]));
  return (sha256) => {
    const data = bySha.get(sha256);
    if (!data) throw new Error(`raw object ${sha256} is missing from the index; run \`lineage index --rebuild\``);
    return data;
  };
}

/**
 * The workspace at `seq` as a `.tar.gz` (tar-stream + zlib) or `.zip` (yazl) stream, byte-exact file
 * contents, paths relative to the workspace root, every mtime = the sequence's sync time, so the same
 * sequence always gives the same bytes. Null for an unknown agent.
 */
export function streamWorkspaceArchive(params: { db: LineageDb; agentId: string; seq: number; format: 'tar.gz' | 'zip'; tenantId?: TenantScope }): Readable | null {
  const tree = getWorkspaceTree(params);
  if (!tree) return null;
  const mtime = sequenceTime(params.db, params.agentId.toLowerCase(), params.seq);
  return params.format === 'zip' ? zipStream(params.db, tree.files, mtime) : tarGzStream(params.db, tree.files, mtime);
}

/**
 * Workspaces are kilobytes to a few megabytes: the tar is assembled in memory and gzipped in one
 * pass, which is an order of magnitude faster than piping entry by entry through async zlib.
 */
function tarGzStream(db: LineageDb, files: WorkspaceFileInfo[], mtime: Date): Readable {
  const out = new PassThrough();
  try {
    const fileBytes = fileContents(db, files);
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    pack.on('error', (e: Error) => out.destroy(e));
    pack.on('end', () => out.end(zlib.gzipSync(Buffer.concat(chunks), { level: 6 })));
    for (const file of files) {
      const data = fileBytes(file.sha256);
      pack.entry({ name: file.path, size: data.byteLength, mtime, mode: 0o644, uid: 0, gid: 0, uname: '', gname: '', type: 'file' }, data);
    }
    pack.finalize();
  } catch (error) {
    out.destroy(error as Error);
  }
  return out;
}

function zipStream(db: LineageDb, files: WorkspaceFileInfo[], mtime: Date): Readable {
  const zip = new yazl.ZipFile();
  // yazl writes DOS times from local-time getters: shift so they read as UTC whatever the TZ.
  const dosTime = new Date(mtime.getTime() + mtime.getTimezoneOffset() * 60_000);
  const out = new PassThrough();
  zip.outputStream.on('error', (e: Error) => out.destroy(e)).pipe(out);
  try {
    const fileBytes = fileContents(db, files);
    for (const file of files) {
      zip.addBuffer(fileBytes(file.sha256), file.path, { mtime: dosTime, mode: 0o100644, compress: true, forceDosTimestamp: true });
    }
    zip.end();
  } catch (error) {
    out.destroy(error as Error);
  }
  return out;
}

/**
 * The `.alf` at `seq`: the restore fold (CONTRACT §6) of the largest snapshot ≤ seq and the deltas
 * after it, stamped with the sequence's sync time so it is deterministic. With no delta to fold the
 * stored snapshot bytes are returned as they were uploaded.
 */
export async function workspaceAlfAt(params: { ledger: Ledger; agentId: string; seq: number; tenantId?: TenantScope }): Promise<Uint8Array> {
  const plan = restorePlan({ ledger: params.ledger, agentId: params.agentId, upToSequence: params.seq, tenantId: params.tenantId });
  const snapshotBytes = await readEntryBytes({ ledger: params.ledger, entry: plan.snapshot });
  if (plan.deltas.length === 0) return snapshotBytes;
  const archives = await readPlanArchives({ ledger: params.ledger, plan });
  const now = sequenceTime(params.ledger.db, plan.agentId, plan.sequence);
  return writeSnapshot(foldSnapshot({ ...archives, now }), { today: now.toISOString().slice(0, 10) });
}
