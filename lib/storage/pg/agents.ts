/**
 * Agents, ledger entries and API keys on PostgreSQL: the verbs of lib/ledger/agents.ts,
 * lib/ledger/entries.ts and lib/server/api-keys.ts, with the same rules and answers (a key is
 * stored as its SHA-256 only and identified by comparing every stored hash in constant time).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import type { AgentRow, EntryKind, LedgerEntryRow } from '@/db/schema';
import { parseUuid } from '@/lib/core/uuid';
import { checkAgentText, deletedElsewhere, type TenantScope } from '@/lib/ledger/agents';
import { advisoryKey } from '@/db/pg/advisory-lock';
import { LedgerError } from '@/lib/ledger/errors';
import { lastSnapshot, restoreTarget, type RestorePlan } from '@/lib/ledger/entries';
import { API_KEY_PREFIX, hashApiKey, type HandOver, type IssuedApiKey, type KeyIdentity } from '@/lib/server/api-keys';
import { first, inTransaction, Params, rows, type Queryable } from './sql';
import { echoInput } from '@/lib/core/echo';

export async function registerAgent(pool: pg.Pool, p: { id: string; name: string; sourceRuntime: string | null; tenantId: string | null; now: Date }):
  Promise<AgentRow | 'exists'> {
  const id = parseUuid(p.id);
  if (id === null) throw new LedgerError('invalid_input', `agent id must be a UUID, got "${echoInput(p.id)}"`);
  checkAgentText(p.name, p.sourceRuntime);
  return inTransaction(pool, async (client) => {
    // The id's lock (deletedAgentLock): a doctor finishing the id's deletion holds it while it removes
    // the objects it left, so the id is not registered again, and no upload lands, in between.
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [deletedAgentLock(id)]);
    const deletion = await first<{ tenant_id: string | null }>(client, 'SELECT tenant_id FROM deleted_agents WHERE id = $1', [id]);
    if (deletedElsewhere(deletion ?? undefined, p.tenantId)) return 'exists';
    const row = await first<AgentRow>(client, `INSERT INTO agents (id, tenant_id, name, source_runtime, created_at, latest_sequence, latest_snapshot_seq)
      VALUES ($1, $2, $3, $4, $5, NULL, NULL) ON CONFLICT DO NOTHING RETURNING *`, [id, p.tenantId, p.name, p.sourceRuntime, p.now.toISOString()]);
    return row ?? 'exists';
  });
}

/** The advisory lock of an agent id's registration and of a doctor finishing its deletion (a PostgreSQL int8). */
export function deletedAgentLock(agentId: string): string {
  return advisoryKey(`agent-id:${agentId}`);
}

export async function getAgent(db: Queryable, p: { agentId: string; tenantId?: TenantScope }): Promise<AgentRow | null> {
  const id = parseUuid(p.agentId);
  if (id === null) return null;
  const row = await first<AgentRow>(db, 'SELECT * FROM agents WHERE id = $1', [id]);
  return row && (p.tenantId === undefined || row.tenant_id === p.tenantId) ? row : null;
}

export async function requireAgent(db: Queryable, p: { agentId: string; tenantId?: TenantScope }): Promise<AgentRow> {
  const row = await getAgent(db, p);
  if (!row) throw new LedgerError('agent_not_found', `agent ${echoInput(p.agentId)} not found`);
  return row;
}

/**
 * The agent as the history queries find it (lib/history/queries/common.ts `findAgent`): by the
 * lower-cased id, within the tenant scope.
 */
export async function findAgent(db: Queryable, agentId: string, tenantId: TenantScope): Promise<AgentRow | null> {
  const row = await first<AgentRow>(db, 'SELECT * FROM agents WHERE id = $1', [agentId.toLowerCase()]);
  return row && (tenantId === undefined || row.tenant_id === tenantId) ? row : null;
}

export async function listAgents(db: Queryable, p: { tenantId?: TenantScope }): Promise<AgentRow[]> {
  const params = new Params();
  const where = p.tenantId === undefined ? '' : p.tenantId === null ? 'WHERE tenant_id IS NULL' : `WHERE tenant_id = ${params.add(p.tenantId)}`;
  return rows<AgentRow>(db, `SELECT * FROM agents ${where} ORDER BY created_at, id`, params);
}

export async function listEntries(db: Queryable, p: { agentId: string; sinceSeq?: number; upToSeq?: number; kind?: EntryKind }): Promise<LedgerEntryRow[]> {
  const params = new Params();
  const conditions = [`agent_id = ${params.add(p.agentId)}`];
  if (p.sinceSeq !== undefined) conditions.push(`seq > ${params.add(p.sinceSeq)}::bigint`);
  if (p.upToSeq !== undefined) conditions.push(`seq <= ${params.add(p.upToSeq)}::bigint`);
  if (p.kind !== undefined) conditions.push(`kind = ${params.add(p.kind)}`);
  return rows<LedgerEntryRow>(db, `SELECT id, agent_id, seq, kind, blob_key, sha256, size_bytes, created_at, creates, updates, deletes, moves,
    raw_changed, raw_deleted, manifest_created_at FROM ledger_entries WHERE ${conditions.join(' AND ')} ORDER BY seq, kind`, params);
}

export async function createApiKey(db: Queryable, p: { name?: string; now: Date; admin?: boolean }): Promise<IssuedApiKey> {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const id = randomUUID();
  const name = p.name && p.name.trim().length > 0 ? p.name.trim() : 'default';
  const createdAt = p.now.toISOString();
  await db.query('INSERT INTO api_keys (id, name, key_hash, created_at, admin) VALUES ($1, $2, $3, $4, $5)', [id, name, hashApiKey(key), createdAt, p.admin ? 1 : 0]);
  return { id, name, key, createdAt, admin: p.admin === true };
}

export async function listApiKeys(db: Queryable): Promise<{ id: string; name: string; created_at: string; admin: boolean }[]> {
  const found = await rows<{ id: string; name: string; created_at: string; admin: number }>(db, 'SELECT id, name, created_at, admin FROM api_keys ORDER BY created_at');
  return found.map((r) => ({ ...r, admin: r.admin === 1 }));
}

export async function countApiKeys(db: Queryable): Promise<number> {
  return (await first<{ n: number }>(db, 'SELECT count(*) AS n FROM api_keys'))?.n ?? 0;
}

export async function revokeApiKey(db: Queryable, p: { id: string }): Promise<boolean> {
  return (await rows(db, 'DELETE FROM api_keys WHERE id = $1 RETURNING id', [p.id])).length > 0;
}

/** As lib/server/api-keys.ts `handOverAgents`, in one transaction. */
export async function handOverAgents(pool: pg.Pool, p: { from: string; to: string; revoke?: boolean }): Promise<HandOver> {
  return inTransaction(pool, (client) => handOverIn(client, p));
}

async function handOverIn(client: pg.PoolClient, p: { from: string; to: string; revoke?: boolean }): Promise<HandOver> {
  // The target key row is locked, so it cannot be revoked before the agents reach it.
  if ((await rows(client, 'SELECT 1 FROM api_keys WHERE id = $1 FOR UPDATE', [p.to])).length === 0) return { ok: false, reason: 'target_not_found' };
  if (p.revoke && (await rows(client, 'DELETE FROM api_keys WHERE id = $1 RETURNING id', [p.from])).length === 0) return { ok: false, reason: 'key_not_found' };
  const moved = await rows<{ id: string }>(client, 'UPDATE agents SET tenant_id = $1 WHERE tenant_id = $2 RETURNING id', [p.to, p.from]);
  await client.query('UPDATE deleted_agents SET tenant_id = $1 WHERE tenant_id = $2', [p.to, p.from]);
  return { ok: true, agents: moved.map((row) => row.id).sort() };
}

/** As lib/server/api-keys.ts `rotateApiKey`, in one transaction. */
export async function rotateApiKey(pool: pg.Pool, p: { id: string; now: Date }): Promise<(IssuedApiKey & { agents: string[] }) | null> {
  return inTransaction(pool, async (client) => {
    const old = (await rows<{ name: string; admin: number }>(client, 'SELECT name, admin FROM api_keys WHERE id = $1 FOR UPDATE', [p.id]))[0];
    if (!old) return null;
    const issued = await createApiKey(client, { name: old.name, now: p.now, admin: old.admin === 1 });
    const handed = await handOverIn(client, { from: p.id, to: issued.id, revoke: true });
    if (!handed.ok) throw new Error(`rotating key ${p.id}: ${handed.reason}`);
    return { ...issued, agents: handed.agents };
  });
}

export async function identifyKey(db: Queryable, p: { key: string }): Promise<KeyIdentity | null> {
  const presented = Buffer.from(hashApiKey(p.key), 'hex');
  let match: { id: string; admin: number } | null = null;
  for (const row of await rows<{ id: string; key_hash: string; admin: number }>(db, 'SELECT id, key_hash, admin FROM api_keys')) {
    const stored = Buffer.from(row.key_hash, 'hex');
    if (stored.length === presented.length && timingSafeEqual(stored, presented) && match === null) match = row;
  }
  return match ? { id: match.id, admin: match.admin === 1 } : null;
}

export async function keyIdentityById(db: Queryable, id: string): Promise<KeyIdentity | null> {
  const row = await first<{ id: string; admin: number }>(db, 'SELECT id, admin FROM api_keys WHERE id = $1', [id]);
  return row ? { id: row.id, admin: row.admin === 1 } : null;
}

export async function sessionKeyIdentity(db: Queryable, p: { keyId: string; sessionId: string }): Promise<KeyIdentity | null> {
  const row = await first<{ id: string; admin: number }>(db,
    'SELECT id, admin FROM api_keys WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM ended_sessions WHERE id = $2)', [p.keyId, p.sessionId]);
  return row ? { id: row.id, admin: row.admin === 1 } : null;
}

export async function endSession(db: Queryable, p: { sessionId: string; expiresAt: number; now: Date }): Promise<void> {
  await rows(db, 'DELETE FROM ended_sessions WHERE expires_at <= $1', [Math.floor(p.now.getTime() / 1000)]);
  await rows(db, 'INSERT INTO ended_sessions (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [p.sessionId, p.expiresAt]);
}

/** One ledger entry of an agent by its id (a signed download names both), or null. */
export async function getEntry(db: Queryable, p: { agentId: string; entryId: string }): Promise<LedgerEntryRow | null> {
  return first<LedgerEntryRow>(db, `SELECT id, agent_id, seq, kind, blob_key, sha256, size_bytes, created_at, creates, updates, deletes, moves,
    raw_changed, raw_deleted, manifest_created_at FROM ledger_entries WHERE id = $1 AND agent_id = $2`, [p.entryId, p.agentId]);
}

/** The restore plan (lib/ledger/entries.ts `restorePlan`) from the same checks. */
export async function restorePlan(db: Queryable, p: { agentId: string; upToSequence?: number; tenantId?: TenantScope }): Promise<RestorePlan> {
  const agent = await requireAgent(db, p);
  const n = restoreTarget(agent, p.upToSequence);
  const snapshot = lastSnapshot(agent, n, await listEntries(db, { agentId: agent.id, upToSeq: n, kind: 'snapshot' }));
  const deltas = await listEntries(db, { agentId: agent.id, sinceSeq: snapshot.seq, upToSeq: n, kind: 'delta' });
  return { agentId: agent.id, sequence: n, snapshot, deltas };
}
