/**
 * The workspace at a sequence on PostgreSQL: per path its latest version ≤ N unless deleted
 * (`DISTINCT ON` instead of SQLite's loose index scan with rowid seeks), one file's bytes, and the
 * download's files a page at a time. Paths sort by code point (`COLLATE "C"`), as SQLite's BINARY.
 */
import { asUint8Array } from '@/lib/core/bytes';
import type { TenantScope } from '@/lib/ledger/agents';
import { assertSequence } from '@/lib/history/queries/common';
import { treeFileOf, type WorkspaceFileInfo } from '@/lib/history/queries/workspace';
import type { DownloadFile } from '@/lib/history/queries/workspace-pages';
import { findAgent } from './agents';
import { first, rows, type Queryable } from './sql';

/** Latest version per path at `seq` (deleted ones included), path order. */
const HEADS_AT = `SELECT DISTINCT ON (path COLLATE "C") path, sha256, size, seq, deleted FROM raw_file_versions
  WHERE agent_id = $1 AND seq <= $2 ORDER BY path COLLATE "C", seq DESC, entry_kind DESC`;

export async function liveRawFiles(db: Queryable, agentId: string, atSeq: number): Promise<{ path: string; sha256: string; size: number; seq: number }[]> {
  const at = Number.isFinite(atSeq) ? atSeq : 2_147_483_647;
  return rows(db, `SELECT path, sha256, size, seq FROM (${HEADS_AT}) h WHERE deleted = 0 ORDER BY path COLLATE "C"`, [agentId, at]);
}

export async function getWorkspaceTree(db: Queryable, p: { agentId: string; seq: number; tenantId?: TenantScope }):
  Promise<{ seq: number; files: WorkspaceFileInfo[] } | null> {
  const agent = await findAgent(db, p.agentId, p.tenantId);
  if (!agent) return null;
  assertSequence(agent, p.seq);
  const rendered = new Set((await rows<{ seq: number; path: string }>(db,
    'SELECT seq, path FROM raw_file_versions WHERE agent_id = $1 AND seq <= $2 AND reconstructed = 1', [agent.id, p.seq]))
    .map((r) => `${r.seq}\n${r.path}`));
  const files = (await liveRawFiles(db, agent.id, p.seq)).filter(treeFileOf(agent.source_runtime)).map((f): WorkspaceFileInfo => ({
    path: f.path, size: f.size, sha256: f.sha256, changed_seq: f.seq,
    ...(rendered.has(`${f.seq}\n${f.path}`) ? { reconstructed: true as const } : {}),
  }));
  return { seq: p.seq, files };
}

export async function getWorkspaceFile(db: Queryable, p: { agentId: string; seq: number; path: string; tenantId?: TenantScope }): Promise<Uint8Array | null> {
  const agent = await findAgent(db, p.agentId, p.tenantId);
  if (!agent) return null;
  assertSequence(agent, p.seq);
  const row = await first<{ data: Buffer }>(db, `SELECT o.data FROM (
      SELECT sha256, deleted FROM raw_file_versions WHERE agent_id = $1 AND path = $2 AND seq <= $3 ORDER BY seq DESC, entry_kind DESC LIMIT 1
    ) v JOIN raw_objects o ON o.sha256 = v.sha256 WHERE v.deleted = 0`, [agent.id, p.path, p.seq]);
  return row ? asUint8Array(row.data) : null;
}

/** The download's files at `seq`, `pageSize` paths per query (resumed after the last path), bytes joined in. */
export async function* liveFilePages(db: Queryable, agentId: string, seq: number, pageSize = 64): AsyncGenerator<DownloadFile[]> {
  let after: string | null = null;
  for (;;) {
    const found: { path: string; deleted: number; sha256: string | null; data: Buffer | null }[] = await rows(db, `
      SELECT h.path, h.deleted, h.sha256, o.data FROM (
        SELECT DISTINCT ON (path COLLATE "C") path, sha256, deleted FROM raw_file_versions
        WHERE agent_id = $1 AND seq <= $2 AND ($3::text IS NULL OR path COLLATE "C" > $3::text)
        ORDER BY path COLLATE "C", seq DESC, entry_kind DESC LIMIT $4) h
      LEFT JOIN raw_objects o ON o.sha256 = h.sha256 AND h.deleted = 0
      ORDER BY h.path COLLATE "C"`, [agentId, seq, after, pageSize]);
    const page: DownloadFile[] = [];
    for (const row of found) {
      if (row.deleted !== 0) continue;
      if (!row.data) throw new Error(`raw object ${row.sha256} is missing from the index; run \`lineage index --rebuild\``);
      page.push({ name: row.path, data: row.data });
    }
    if (page.length > 0) yield page;
    if (found.length < pageSize) return;
    after = found[found.length - 1]!.path;
  }
}
