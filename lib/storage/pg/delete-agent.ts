/**
 * Deletes an agent on PostgreSQL as lib/ledger/agents.ts `deleteAgent` does on SQLite: the rows
 * first, in one transaction (the agent's row cascades to its entries and index), raw objects no
 * other agent references dropped (once no other upload is writing them), then its blobs, so a crash
 * in between leaves blobs known as the deleted agent's leftovers (the deletion is recorded in
 * `deleted_agents` / `deleted_agent_blobs` in the same transaction), never entries without blobs.
 */
import type pg from 'pg';
import type { BlobStore } from '@/lib/ledger/blob-store';
import { leftoverWarning, notEmpty, withKeys, type DeletedAgent, type TenantScope } from '@/lib/ledger/agents';
import type { LeftoverRemoval } from '@/lib/ledger/consistency';
import { doctorStopPoint } from '@/lib/ledger/doctor-stop-points';
import { deletedAgentLock, requireAgent } from './agents';
import { inTransaction, rows } from './sql';

export async function deleteAgent(pool: pg.Pool, blobs: BlobStore, p: { agentId: string; tenantId?: TenantScope; now?: Date; onlyIfEmpty?: boolean }):
  Promise<{ deleted: true; objects_removed: number }> {
  const agent = await requireAgent(pool, p);
  const keys = await inTransaction(pool, async (client) => {
    // The agent's row first: an append waiting on it (FOR UPDATE) then finds no agent.
    await client.query('SELECT 1 FROM agents WHERE id = $1 FOR UPDATE', [agent.id]);
    const found = await rows<{ blob_key: string }>(client, 'SELECT blob_key FROM ledger_entries WHERE agent_id = $1', [agent.id]);
    if (p.onlyIfEmpty && found.length > 0) throw notEmpty(agent.id, found.length);
    const shas = await rows<{ sha256: string }>(client,
      'SELECT DISTINCT sha256 FROM raw_file_versions WHERE agent_id = $1 AND sha256 IS NOT NULL', [agent.id]);
    const keys = [...new Set(found.map((r) => r.blob_key))];
    await client.query(`INSERT INTO deleted_agents (id, tenant_id, name, deleted_at) VALUES ($1, $2, $3, $4)
      ON CONFLICT (id) DO UPDATE SET tenant_id = excluded.tenant_id, name = excluded.name, deleted_at = excluded.deleted_at`,
    [agent.id, agent.tenant_id, agent.name, (p.now ?? new Date()).toISOString()]);
    await client.query(`INSERT INTO deleted_agent_blobs (agent_id, blob_key) SELECT $1, k FROM unnest($2::text[]) AS k
      ON CONFLICT DO NOTHING`, [agent.id, keys]);
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
  let removed = 0;
  try {
    for (const key of unique) {
      await blobs.delete(key);
      removed += 1;
    }
  } catch (error) {
    // The deletion is committed (and recorded): it is answered as done, with the objects actually removed.
    console.error(leftoverWarning(agent.id, unique.length - removed, error));
  }
  return { deleted: true, objects_removed: removed };
}

/** Every deleted agent, by id, with the blob keys its deletions removed (as lib/ledger/agents.ts listDeletedAgents). */
export async function listDeletedAgents(pool: pg.Pool): Promise<DeletedAgent[]> {
  return withKeys(
    await rows<Omit<DeletedAgent, 'blob_keys'>>(pool, 'SELECT id, tenant_id, name, deleted_at FROM deleted_agents ORDER BY id COLLATE "C"'),
    await rows<{ agent_id: string; blob_key: string }>(pool, 'SELECT agent_id, blob_key FROM deleted_agent_blobs ORDER BY agent_id COLLATE "C", blob_key COLLATE "C"'),
  );
}

/**
 * Removes objects a deleted agent left (`keys`, found unreferenced by doctor), each looked at again
 * first, in one transaction holding the id's advisory lock (`deletedAgentLock`: a registration of the
 * id waits) and, when the id is registered again, its row (an ingest writes its object under that row
 * lock, after its sequence check: it waits too). So no upload of the id can land at one of these keys
 * between the look and the DeleteObject; a key an entry names by then is kept (left out of the answer).
 * The ingest path takes no lock it did not take before.
 */
export async function removeLeftoverObjects(pool: pg.Pool, blobs: BlobStore, p: { agentId: string; keys: readonly string[] }): Promise<LeftoverRemoval[]> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [deletedAgentLock(p.agentId)]);
    await client.query('SELECT 1 FROM agents WHERE id = $1 FOR UPDATE', [p.agentId]);
    const named = new Set((await rows<{ blob_key: string }>(client,
      'SELECT blob_key FROM ledger_entries WHERE agent_id = $1 AND blob_key = ANY($2::text[])', [p.agentId, [...p.keys]])).map((r) => r.blob_key));
    doctorStopPoint('recheck');
    const out: LeftoverRemoval[] = [];
    for (const key of p.keys.filter((k) => !named.has(k))) {
      try {
        await blobs.delete(key);
        out.push({ key, removed: true });
      } catch (error) {
        out.push({ key, removed: false, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return out;
  });
}
