/**
 * Plain SQL on the scale-out backend's pool: `$n` placeholders numbered by a `Params` collector,
 * so optional filters can be spliced in without counting by hand. Integers arrive as numbers
 * (db/pg/client.ts sets the parsers).
 */
import type pg from 'pg';
import type { TenantScope } from '@/lib/ledger/agents';

/** A statement with a name: PostgreSQL parses and plans it once per connection, then reuses the plan. */
export interface NamedQuery { name: string; text: string; values?: unknown[] }

/** Anything that runs a query: the pool or one checked-out client. */
export interface Queryable {
  query(text: string | NamedQuery, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export class Params {
  readonly values: unknown[] = [];

  /** The placeholder of `value`. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const holdsNul = (value: unknown): boolean =>
  (typeof value === 'string' && value.includes('\u0000')) || (Array.isArray(value) && value.some(holdsNul));

/**
 * The rows of a query. PostgreSQL text cannot hold U+0000 (the query would fail), so no stored
 * value equals a string holding it: a read whose parameter holds one has no rows, as SQLite
 * answers. Every string a caller gives is used in an equality of the WHERE clause, ANDed.
 */
export async function rows<T extends object>(db: Queryable, text: string, params: Params | unknown[] = []): Promise<T[]> {
  const values = params instanceof Params ? params.values : params;
  if (/^\s*(SELECT|WITH)\b/i.test(text) && values.some(holdsNul)) return [];
  return (await db.query(text, values)).rows as T[];
}

export async function first<T extends object>(db: Queryable, text: string, params: Params | unknown[] = []): Promise<T | null> {
  return (await rows<T>(db, text, params))[0] ?? null;
}

/** `AND <table>.tenant_id …` for a tenant scope (empty for undefined = all tenants). */
export function tenantCondition(p: Params, table: string, tenantId: TenantScope): string {
  if (tenantId === undefined) return '';
  return tenantId === null ? `AND ${table}.tenant_id IS NULL` : `AND ${table}.tenant_id = ${p.add(tenantId)}`;
}

/** Runs `task` in one transaction on one client. */
export async function inTransaction<T>(pool: pg.Pool, task: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await task(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Rows inserted per statement: PostgreSQL takes at most 65,535 parameters in one. */
export function chunks<T>(items: readonly T[], width: number): T[][] {
  const size = Math.max(1, Math.floor(60_000 / width));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `INSERT INTO table (columns) VALUES (…), (…) <suffix>` for `items`, in chunks. */
export async function insertRows(db: Queryable, table: string, columns: readonly string[], items: readonly unknown[][], suffix = ''): Promise<void> {
  for (const chunk of chunks(items, columns.length)) {
    const values: unknown[] = [];
    const tuples = chunk.map((row) => `(${row.map((v) => { values.push(v); return `$${values.length}`; }).join(', ')})`);
    await db.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')} ${suffix}`, values);
  }
}
