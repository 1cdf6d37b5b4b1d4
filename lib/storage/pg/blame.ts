/**
 * A file's blame (lib/history/queries/blame.ts) on PostgreSQL: the same rows — the file's raw
 * versions, the records live in it (`liveAt`), their chains of versions a round per move back —
 * folded by the same pure code (blame-blocks.ts, blame-chain.ts, blame-sections.ts).
 */
import type { BlameMark } from '@/lib/history/queries/blame-chain';
import {
  binaryBlame, blameOf, ChainRounds, fileText, lastFileChange, placeLive,
  type BlameLiveRow, type ChainVersionRow, type FileBlame, type FileVersionRow,
} from '@/lib/history/queries/blame-blocks';
import { assertSequence, type TenantScope } from '@/lib/history/queries/common';
import { findAgent } from './agents';
import { liveAt } from './records';
import { first, Params, rows, type Queryable } from './sql';
import { getWorkspaceFile } from './workspace';

/** When the file's bytes at `seq` last changed, with that sequence's sync time. */
async function fileChange(db: Queryable, agentId: string, path: string, seq: number): Promise<{ mark: BlameMark; reconstructed: boolean }> {
  const versions = await rows<FileVersionRow>(db, `
    SELECT seq, sha256, reconstructed FROM raw_file_versions WHERE agent_id = $1 AND path = $2 AND seq <= $3
    ORDER BY seq DESC, entry_kind DESC`, [agentId, path, seq]);
  const last = lastFileChange(versions);
  const at = (await first<{ t: string }>(db, `
    SELECT created_at AS t FROM ledger_entries WHERE agent_id = $1 AND seq = $2 ORDER BY kind COLLATE "C" LIMIT 1`, [agentId, last.seq]))?.t ?? '';
  return { mark: { seq: last.seq, at }, reconstructed: last.reconstructed };
}

async function liveInFile(db: Queryable, agentId: string, seq: number, path: string): Promise<BlameLiveRow[]> {
  const p = new Params();
  const live = liveAt(p, agentId, seq);
  return rows<BlameLiveRow>(db, `WITH live AS (${live})
    SELECT record_id, content, heading, record_json, version_id FROM live WHERE origin_file = ${p.add(path)}`, p);
}

async function sectionHistories(db: Queryable, agentId: string, seq: number, records: readonly BlameLiveRow[]) {
  const chains = new ChainRounds();
  let wanted = records.map((r) => r.record_id);
  while (wanted.length > 0) {
    const found = await rows<ChainVersionRow>(db, `
      SELECT id, record_id, seq, entry_kind, op, content_sha256, moved_from, origin_file, heading, synced_at FROM record_versions
      WHERE agent_id = $1 AND record_id = ANY($2::text[]) AND seq <= $3
      ORDER BY record_id COLLATE "C", seq, entry_kind COLLATE "C"`, [agentId, wanted, seq]);
    wanted = chains.add(wanted, found);
  }
  return chains.histories(records);
}

export async function getFileBlame(db: Queryable, params: { agentId: string; seq: number; path: string; tenantId?: TenantScope }): Promise<FileBlame | null> {
  const agent = await findAgent(db, params.agentId, params.tenantId);
  if (!agent) return null;
  assertSequence(agent, params.seq);
  const { seq, path } = params;
  const bytes = await getWorkspaceFile(db, { agentId: agent.id, seq, path });
  if (!bytes) return null;
  const head = await fileChange(db, agent.id, path, seq);
  const base = { agentId: agent.id, seq, path, fileChanged: head.mark, reconstructed: head.reconstructed };
  const text = fileText(bytes);
  if (text === null) return binaryBlame(base);
  const { placed, unplaced } = placeLive(text, await liveInFile(db, agent.id, seq, path));
  const histories = await sectionHistories(db, agent.id, seq, placed.map((p) => p.record));
  return blameOf({ ...base, text, placed, unplaced, histories });
}
