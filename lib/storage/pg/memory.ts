/**
 * The agent's live records as MemoryRecordDto on PostgreSQL (lib/history/queries/memory-dto.ts):
 * the same two columns read — the latest version's JSON and the record's last sequence — and
 * folded by the same `memoryDtoOf`, in birth order.
 */
import type { TenantScope } from '@/lib/ledger/agents';
import { memoryDtoOf, type MemoryRecordDto } from '@/lib/history/queries/memory-dto';
import { findAgent } from './agents';
import { rows, type Queryable } from './sql';

export async function getAgentMemoryDto(db: Queryable, p: { agentId: string; tenantId?: TenantScope }): Promise<MemoryRecordDto[] | null> {
  const agent = await findAgent(db, p.agentId, p.tenantId);
  if (!agent) return null;
  // SQLite's LATEST_VERSION_JOIN: the version with the highest (seq, entry_kind), 'snapshot' > 'delta'.
  const found = await rows<{ record_json: string; last_seq: number }>(db, `
    SELECT v.record_json, r.last_seq FROM records r
    JOIN LATERAL (SELECT w.record_json FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id
      ORDER BY w.seq DESC, w.entry_kind COLLATE "C" DESC LIMIT 1) v ON true
    WHERE r.agent_id = $1 AND r.deleted_seq IS NULL
    ORDER BY r.first_seq, r.record_id COLLATE "C"`, [agent.id]);
  return found.map(({ record_json, last_seq }) => memoryDtoOf(record_json, last_seq));
}
