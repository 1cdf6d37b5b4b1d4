/**
 * The ledger's own rows (API keys = tenants, agents, ledger entries, deleted agents, ended sessions) copied as they are into the
 * scale-out database, for `lineage migrate`. One transaction, `ON CONFLICT DO NOTHING`, so a re-run
 * after a kill adds what is missing and changes nothing else; afterwards the target must hold
 * exactly the given rows, or the copy is refused (and rolled back) naming the first difference: a
 * target that already serves other data is never merged into.
 */
import type { AgentRow, ApiKeyRow, LedgerEntryRow } from '@/db/schema';
import type pg from 'pg';
import type { DeletedAgent } from '@/lib/ledger/agents';
import { LedgerError } from '@/lib/ledger/errors';
import { inTransaction, insertRows, rows } from './sql';

export interface LedgerRows {
  apiKeys: ApiKeyRow[];
  agents: AgentRow[];
  entries: LedgerEntryRow[];
  /** Deleted agents and the blob keys their deletions removed: the copy's doctor knows their leftovers too. */
  deleted: DeletedAgent[];
  /**
   * Dashboard sessions ended by sign-out, not yet expired: a copy served with the same secret
   * (`LINEAGE_SECRET` set to the data directory's) must still refuse their cookies.
   */
  endedSessions: { id: string; expires_at: number }[];
}

const KEY_COLUMNS = ['id', 'name', 'key_hash', 'created_at', 'admin'] as const;
const AGENT_COLUMNS = ['id', 'tenant_id', 'name', 'source_runtime', 'created_at', 'latest_sequence', 'latest_snapshot_seq'] as const;
const ENTRY_COLUMNS = ['id', 'agent_id', 'seq', 'kind', 'blob_key', 'sha256', 'size_bytes', 'created_at',
  'creates', 'updates', 'deletes', 'moves', 'raw_changed', 'raw_deleted', 'manifest_created_at'] as const;
const DELETED_COLUMNS = ['id', 'tenant_id', 'name', 'deleted_at'] as const;
const DELETED_KEY_COLUMNS = ['agent_id', 'blob_key'] as const;
const ENDED_SESSION_COLUMNS = ['id', 'expires_at'] as const;

const values = <T extends object>(items: readonly T[], columns: readonly (keyof T & string)[]) =>
  items.map((item) => columns.map((c) => item[c]));

/** The rows of one table, keyed by `key`, with only `columns`, as comparable JSON. */
function byKey(items: readonly object[], columns: readonly string[], key: (row: Record<string, unknown>) => string): Map<string, string> {
  return new Map(items.map((item) => {
    const row = item as Record<string, unknown>;
    return [key(row), JSON.stringify(columns.map((c) => row[c] ?? null))];
  }));
}

function compare(table: string, source: Map<string, string>, target: Map<string, string>): void {
  for (const [key, row] of target) {
    const wanted = source.get(key);
    if (wanted === undefined) {
      throw new LedgerError('invalid_input', `the target database already holds ${table} ${key}, which the data directory does not: migrate into an empty database`);
    }
    if (wanted !== row) throw new LedgerError('invalid_input', `the target database holds ${table} ${key} with other values than the data directory (${row} there, ${wanted} here)`);
  }
  for (const key of source.keys()) if (!target.has(key)) throw new Error(`${table} ${key} was not copied`);
}

/** Copies `data`'s rows into the database (idempotent) and checks the target now holds exactly them. */
export async function importLedgerRows(pool: pg.Pool, data: LedgerRows): Promise<void> {
  await inTransaction(pool, async (db) => {
    // Keys first (agents name them as tenants), then agents, then their entries.
    await insertRows(db, 'api_keys', KEY_COLUMNS, values(data.apiKeys, [...KEY_COLUMNS]), 'ON CONFLICT DO NOTHING');
    await insertRows(db, 'agents', AGENT_COLUMNS, values(data.agents, [...AGENT_COLUMNS]), 'ON CONFLICT DO NOTHING');
    await insertRows(db, 'ledger_entries', ENTRY_COLUMNS, values(data.entries, [...ENTRY_COLUMNS]), 'ON CONFLICT DO NOTHING');
    const deletedKeys = data.deleted.flatMap((d) => d.blob_keys.map((blob_key) => ({ agent_id: d.id, blob_key })));
    await insertRows(db, 'deleted_agents', DELETED_COLUMNS, values(data.deleted, [...DELETED_COLUMNS]), 'ON CONFLICT DO NOTHING');
    await insertRows(db, 'deleted_agent_blobs', DELETED_KEY_COLUMNS, values(deletedKeys, [...DELETED_KEY_COLUMNS]), 'ON CONFLICT DO NOTHING');
    // Not compared: the copy's own sign-outs (a re-run after it served) are more, never fewer.
    await insertRows(db, 'ended_sessions', ENDED_SESSION_COLUMNS, values(data.endedSessions, [...ENDED_SESSION_COLUMNS]), 'ON CONFLICT DO NOTHING');
    const entryKey = (r: Record<string, unknown>) => `${String(r.agent_id)}/${String(r.seq)}/${String(r.kind)}`;
    compare('API key', byKey(data.apiKeys, KEY_COLUMNS, (r) => String(r.id)),
      byKey(await rows(db, `SELECT ${KEY_COLUMNS.join(', ')} FROM api_keys`), KEY_COLUMNS, (r) => String(r.id)));
    compare('agent', byKey(data.agents, AGENT_COLUMNS, (r) => String(r.id)),
      byKey(await rows(db, `SELECT ${AGENT_COLUMNS.join(', ')} FROM agents`), AGENT_COLUMNS, (r) => String(r.id)));
    compare('deleted agent', byKey(data.deleted, DELETED_COLUMNS, (r) => String(r.id)),
      byKey(await rows(db, `SELECT ${DELETED_COLUMNS.join(', ')} FROM deleted_agents`), DELETED_COLUMNS, (r) => String(r.id)));
    const pair = (r: Record<string, unknown>) => `${String(r.agent_id)} ${String(r.blob_key)}`;
    compare('deleted agent blob', byKey(deletedKeys, DELETED_KEY_COLUMNS, pair),
      byKey(await rows(db, `SELECT ${DELETED_KEY_COLUMNS.join(', ')} FROM deleted_agent_blobs`), DELETED_KEY_COLUMNS, pair));
    // The per-entry counts are the index's and may be rewritten by the rebuild: compared after it.
    const identity = ENTRY_COLUMNS.slice(0, 8);
    compare('ledger entry', byKey(data.entries, identity, entryKey),
      byKey(await rows(db, `SELECT ${identity.join(', ')} FROM ledger_entries`), identity, entryKey));
  });
}
