import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { api_keys } from '@/db/schema';
import type { LineageDb } from '@/db/client';

/** Prefix of every key this service issues (the reference's keys look like `alf_sk_…`). */
export const API_KEY_PREFIX = 'alf_sk_';

/** SHA-256 hex of a key: the only form in which keys are stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A freshly issued key; `key` is shown once and never stored. */
export interface IssuedApiKey {
  id: string;
  name: string;
  key: string;
  createdAt: string;
}

/** Issues a key (a new tenant): 32 random bytes, stored as its SHA-256 hash only. */
export function createApiKey(params: { db: LineageDb; name?: string; now: Date }): IssuedApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const row = {
    id: randomUUID(),
    name: params.name && params.name.trim().length > 0 ? params.name.trim() : 'default',
    key_hash: hashApiKey(key),
    created_at: params.now.toISOString(),
  };
  params.db.db.insert(api_keys).values(row).run();
  return { id: row.id, name: row.name, key, createdAt: row.created_at };
}

/** Keys without their hashes, oldest first. */
export function listApiKeys(params: { db: LineageDb }): { id: string; name: string; created_at: string }[] {
  return params.db.db
    .select({ id: api_keys.id, name: api_keys.name, created_at: api_keys.created_at })
    .from(api_keys)
    .orderBy(api_keys.created_at)
    .all();
}

/** Revokes a key; its agents stay but are no longer reachable with any key. */
export function revokeApiKey(params: { db: LineageDb; id: string }): boolean {
  return params.db.db.delete(api_keys).where(eq(api_keys.id, params.id)).run().changes > 0;
}

/** The tenant (key id) a presented key belongs to, or null when unknown. */
const keyByHash = new WeakMap<LineageDb, { get(values: { hash: string }): { id: string } | undefined }>();

/** Every request authenticates: the lookup is prepared once per database handle. */
export function tenantForKey(params: { db: LineageDb; key: string }): string | null {
  let statement = keyByHash.get(params.db);
  if (!statement) {
    statement = params.db.db.select({ id: api_keys.id }).from(api_keys).where(eq(api_keys.key_hash, sql.placeholder('hash'))).prepare();
    keyByHash.set(params.db, statement);
  }
  return statement.get({ hash: hashApiKey(params.key) })?.id ?? null;
}
