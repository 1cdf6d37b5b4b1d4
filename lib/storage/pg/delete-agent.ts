/**
 * Deletes an agent on PostgreSQL as lib/ledger/agents.ts `deleteAgent` does on SQLite: the rows
 * first, in one transaction (the agent's row cascades to its entries and index), raw objects no
 * other agent references dropped (once no other upload is writing them), then its blobs, so a crash
 * in between leaves orphan blobs, never entries without blobs.
 */
import type pg from 'pg';
import type { BlobStore } from '@/lib/ledger/blob-store';
import type { TenantScope } from '@/lib/ledger/agents';
import { requireAgent } from './agents';
import { inTransaction, rows } from './sql';

export async function deleteAgent(pool: pg.Pool, blobs: BlobStore, p: { agentId: string; tenantId?: TenantScope }):
  Promise<{ deleted: true; objects_removed: number }> {
  const agent = await requireAgent(pool, p);
  const keys = await inTransaction(pool, async (client) => {
    // The agent's row first: an append waiting on it (FOR UPDATE) then finds no agent.
    await client.query('SELECT 1 FROM agents WHERE id = $1 FOR UPDATE', [agent.id]);
    const found = await rows<{ blob_key: string }>(client, 'SELECT blob_key FROM ledger_entries WHERE agent_id = $1', [agent.id]);
    const shas = await rows<{ sha256: string }>(client,
      'SELECT DISTINCT sha256 FROM raw_file_versions WHERE agent_id = $1 AND sha256 IS NOT NULL', [agent.id]);
    await client.query('DELETE FROM agents WHERE id = $1', [agent.id]);
    if (shas.length > 0) {
      // Raw objects are shared by every agent holding the same bytes, and an upload of another agent
      // may be indexing a file that names one, uncommitted and so invisible to the check below. This
      // lock waits for every transaction that has written raw_objects (an ingest's flush takes ROW
      // EXCLUSIVE until its commit) and holds new ones off until this commit, so the check sees them.
      await client.query('LOCK TABLE raw_objects IN SHARE ROW EXCLUSIVE MODE');
      await client.query(`DELETE FROM raw_objects o WHERE o.sha256 = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM raw_file_versions v WHERE v.sha256 = o.sha256)`, [shas.map((s) => s.sha256)]);
    }
    return found.map((r) => r.blob_key);
  });
  const unique = [...new Set(keys)];
  for (const key of unique) await blobs.delete(key);
  return { deleted: true, objects_removed: unique.length };
}
