import type { Statement } from 'better-sqlite3';
import { asc, eq, isNull, type SQL } from 'drizzle-orm';
import { agents, ledger_entries, raw_file_versions, type AgentRow } from '@/db/schema';
import { parseUuid } from '@/lib/core/uuid';
import { agentNameProblem, agentRuntimeProblem } from './agent-name';
import { LedgerError } from './errors';
import { FsBlobStore } from './blob-store';
import type { Ledger } from './ledger';
import { echoInput } from '@/lib/core/echo';

export type { AgentRow };

/**
 * Tenant scope of a lookup: `undefined` = any tenant (local admin), `null` = the local tenant,
 * a string = that API key's tenant.
 */
export type TenantScope = string | null | undefined;

function tenantCondition(tenantId: TenantScope): SQL | undefined {
  if (tenantId === undefined) return undefined;
  return tenantId === null ? isNull(agents.tenant_id) : eq(agents.tenant_id, tenantId);
}

/**
 * An agent's name and runtime as both backends accept them: as agent-name.ts says, and no
 * NUL character (U+0000) in either (PostgreSQL text cannot hold it). Throws `invalid_input` (400).
 */
export function checkAgentText(name: string, sourceRuntime: string | null): void {
  if ((typeof name === 'string' && name.includes('\u0000')) || (sourceRuntime ?? '').includes('\u0000')) {
    throw new LedgerError('invalid_input', `agent ${typeof name === 'string' && name.includes('\u0000') ? 'name' : 'source_runtime'} holds a NUL character (U+0000)`);
  }
  const problem = agentNameProblem(name) ?? agentRuntimeProblem(sourceRuntime);
  if (problem !== null) throw new LedgerError('invalid_input', problem);
}

/**
 * Registers an agent; `'exists'` when the id is already taken (in any tenant), or when another tenant
 * deleted it (`deletedElsewhere`): an API key gets the answer it gets for another tenant's agent,
 * nothing more. Both backends.
 */
export function registerAgent(params: {
  ledger: Ledger; id: string; name: string; sourceRuntime: string | null; tenantId: string | null; now: Date;
}): AgentRow | 'exists' {
  const id = parseUuid(params.id);
  if (id === null) throw new LedgerError('invalid_input', `agent id must be a UUID, got "${echoInput(params.id)}"`);
  checkAgentText(params.name, params.sourceRuntime);
  const row: AgentRow = {
    id, tenant_id: params.tenantId, name: params.name, source_runtime: params.sourceRuntime,
    created_at: params.now.toISOString(), latest_sequence: null, latest_snapshot_seq: null,
  };
  const { db, sqlite } = params.ledger.db;
  // One write transaction: the deletion read and the row written with no other writer between them.
  return sqlite.transaction((): AgentRow | 'exists' => {
    const deletion = sqlite.prepare('SELECT tenant_id FROM deleted_agents WHERE id = ?').get(id) as { tenant_id: string | null } | undefined;
    if (deletedElsewhere(deletion, params.tenantId)) return 'exists';
    return db.insert(agents).values(row).onConflictDoNothing().returning().all()[0] ?? 'exists';
  }).immediate();
}

/**
 * Whether a deleted id is kept from a registering tenant: an API key (`tenantId` a string) may register
 * again only an id its own tenant deleted. The local owner (`null`: a `--data` sync, `lineage` on the
 * storage itself, who sees every tenant) may register any. Both backends.
 */
export function deletedElsewhere(deletion: { tenant_id: string | null } | undefined, tenantId: string | null): boolean {
  return deletion !== undefined && tenantId !== null && deletion.tenant_id !== tenantId;
}

/**
 * The agent lookup runs several times per protocol request: one plain prepared statement per
 * database handle (the table's columns are AgentRow's, so no mapping is needed).
 */
const agentById = new WeakMap<Ledger['db'], Statement<[string], AgentRow>>();

function lookupAgent(ledger: Ledger, id: string): AgentRow | undefined {
  let statement = agentById.get(ledger.db);
  if (!statement) {
    statement = ledger.db.sqlite.prepare<[string], AgentRow>('SELECT * FROM agents WHERE id = ?');
    agentById.set(ledger.db, statement);
  }
  return statement.get(id);
}

/** The agent, or null when unknown or outside the tenant scope. */
export function getAgent(params: { ledger: Ledger; agentId: string; tenantId?: TenantScope }): AgentRow | null {
  const id = parseUuid(params.agentId);
  if (id === null) return null;
  const row = lookupAgent(params.ledger, id);
  if (!row || !inTenant(row, params.tenantId)) return null;
  return row;
}

function inTenant(row: AgentRow, tenantId: TenantScope): boolean {
  return tenantId === undefined || row.tenant_id === tenantId;
}

/** Like `getAgent` but throws `LedgerError('agent_not_found')`. */
export function requireAgent(params: { ledger: Ledger; agentId: string; tenantId?: TenantScope }): AgentRow {
  const row = getAgent(params);
  if (!row) throw new LedgerError('agent_not_found', `agent ${echoInput(params.agentId)} not found`);
  return row;
}

/** Agents of a tenant scope, by creation time then id. */
export function listAgents(params: { ledger: Ledger; tenantId?: TenantScope }): AgentRow[] {
  return params.ledger.db.db.select().from(agents).where(tenantCondition(params.tenantId))
    .orderBy(asc(agents.created_at), asc(agents.id)).all();
}

/**
 * Deletes an agent: its rows first (one transaction, cascading to the ledger and the index, and
 * recording the deletion in `deleted_agents` / `deleted_agent_blobs`), then its blobs, so a crash in
 * between leaves blobs known as the deleted agent's leftovers (`lineage doctor` lists them, `--repair`
 * finishes their removal), never entries without blobs, nor blobs taken for lost uploads. Raw objects
 * no other agent references are dropped. Returns how many blobs were removed.
 */
export async function deleteAgent(params: { ledger: Ledger; agentId: string; tenantId?: TenantScope; now?: Date; onlyIfEmpty?: boolean }): Promise<{ deleted: true; objects_removed: number }> {
  const agent = requireAgent(params);
  const { db, sqlite } = params.ledger.db;
  const deletedAt = (params.now ?? new Date()).toISOString();
  const keys = sqlite.transaction(() => {
    // Inside the write transaction: an entry appended meanwhile is cascaded, so its blob is recorded and removed too.
    const found = db.select({ blob_key: ledger_entries.blob_key }).from(ledger_entries)
      .where(eq(ledger_entries.agent_id, agent.id)).all().map((r) => r.blob_key);
    if (params.onlyIfEmpty && found.length > 0) throw notEmpty(agent.id, found.length);
    const shas = db.selectDistinct({ sha256: raw_file_versions.sha256 }).from(raw_file_versions)
      .where(eq(raw_file_versions.agent_id, agent.id)).all();
    recordDeletion(sqlite, agent, deletedAt, found);
    db.delete(agents).where(eq(agents.id, agent.id)).run();
    const unused = sqlite.prepare(
      'DELETE FROM raw_objects WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM raw_file_versions v WHERE v.sha256 = ?)',
    );
    for (const { sha256 } of shas) if (sha256 !== null) unused.run(sha256, sha256);
    return found;
  }).immediate();
  const unique = [...new Set(keys)];
  // All at once where the store packs blobs against each other: dependants that go too are not rewritten first.
  const { blobs } = params.ledger;
  try {
    if (blobs instanceof FsBlobStore) await blobs.deleteMany(unique);
    else for (const key of unique) await blobs.delete(key);
  } catch (error) {
    // The deletion is committed (and recorded): it is answered as done, with the blobs actually removed.
    const left = (await Promise.all(unique.map((k) => blobs.exists(k).catch(() => true)))).filter(Boolean).length;
    console.error(leftoverWarning(agent.id, left, error));
    return { deleted: true, objects_removed: unique.length - left };
  }
  return { deleted: true, objects_removed: unique.length };
}

/**
 * The refusal of a delete asked only for an empty agent (`DELETE /agents/{id}?if_empty=true`: a first
 * sync undoing the registration its refused snapshot left) when the agent holds entries by the time
 * the delete runs — another machine's first snapshot stored between that client's look and its delete.
 * Nothing was deleted. Both backends.
 */
export function notEmpty(agentId: string, entries: number): LedgerError {
  return new LedgerError('agent_not_empty', `agent ${agentId} holds ${entries} ledger entr${entries === 1 ? 'y' : 'ies'}: it was asked to be deleted only if empty, and nothing was deleted`);
}

/**
 * What the server says when a deleted agent's blobs could not all be removed (its rows are gone and the
 * deletion recorded, so the delete is answered as done): `lineage doctor --repair` finishes it. Both backends.
 */
export function leftoverWarning(agentId: string, left: number, error: unknown): string {
  return `[lineage] WARNING: agent ${agentId} is deleted, but ${left} of its blob(s) could not be removed `
    + `(${error instanceof Error ? error.message : String(error)}). They are recorded as the deleted agent's: `
    + '`lineage doctor --repair` removes them.';
}

/** The deletion's record (a later deletion of an id registered again updates it and adds its keys). */
function recordDeletion(sqlite: Ledger['db']['sqlite'], agent: AgentRow, deletedAt: string, keys: readonly string[]): void {
  sqlite.prepare(`INSERT INTO deleted_agents (id, tenant_id, name, deleted_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET tenant_id = excluded.tenant_id, name = excluded.name, deleted_at = excluded.deleted_at`)
    .run(agent.id, agent.tenant_id, agent.name, deletedAt);
  const key = sqlite.prepare('INSERT OR IGNORE INTO deleted_agent_blobs (agent_id, blob_key) VALUES (?, ?)');
  for (const k of new Set(keys)) key.run(agent.id, k);
}

/** A deleted agent as `lineage doctor` and `lineage migrate` read it: the deletion and every blob key it removed. */
export interface DeletedAgent {
  id: string;
  tenant_id: string | null;
  name: string;
  deleted_at: string;
  blob_keys: string[];
}

/** Every deleted agent, by id, with its blob keys sorted. */
export function listDeletedAgents(params: { ledger: Ledger }): DeletedAgent[] {
  const { sqlite } = params.ledger.db;
  const rows = sqlite.prepare('SELECT id, tenant_id, name, deleted_at FROM deleted_agents ORDER BY id').all() as Omit<DeletedAgent, 'blob_keys'>[];
  const keys = sqlite.prepare('SELECT agent_id, blob_key FROM deleted_agent_blobs ORDER BY agent_id, blob_key').all() as { agent_id: string; blob_key: string }[];
  return withKeys(rows, keys);
}

/** Deleted agents' rows joined with their key rows (both backends). */
export function withKeys(rows: readonly Omit<DeletedAgent, 'blob_keys'>[], keys: readonly { agent_id: string; blob_key: string }[]): DeletedAgent[] {
  const byAgent = new Map<string, string[]>();
  for (const { agent_id, blob_key } of keys) {
    const list = byAgent.get(agent_id) ?? [];
    list.push(blob_key);
    byAgent.set(agent_id, list);
  }
  return rows.map((r) => ({ ...r, blob_keys: byAgent.get(r.id) ?? [] }));
}
