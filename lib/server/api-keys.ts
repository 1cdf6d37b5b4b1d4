import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { eq } from 'drizzle-orm';
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
  admin: boolean;
}

/** Issues a key (a new tenant): 32 random bytes, stored as its SHA-256 hash only. `admin` sees every tenant in the dashboard. */
export function createApiKey(params: { db: LineageDb; name?: string; now: Date; admin?: boolean }): IssuedApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const row = {
    id: randomUUID(),
    name: params.name && params.name.trim().length > 0 ? params.name.trim() : 'default',
    key_hash: hashApiKey(key),
    created_at: params.now.toISOString(),
    admin: params.admin ? 1 : 0,
  };
  params.db.db.insert(api_keys).values(row).run();
  return { id: row.id, name: row.name, key, createdAt: row.created_at, admin: row.admin === 1 };
}

/** Keys without their hashes, oldest first. */
export function listApiKeys(params: { db: LineageDb }): { id: string; name: string; created_at: string; admin: boolean }[] {
  return params.db.db
    .select({ id: api_keys.id, name: api_keys.name, created_at: api_keys.created_at, admin: api_keys.admin })
    .from(api_keys)
    .orderBy(api_keys.created_at)
    .all()
    .map((row) => ({ ...row, admin: row.admin === 1 }));
}

/** How many keys exist (a non-loopback `serve` refuses to start with none). */
export function countApiKeys(db: LineageDb): number {
  return (db.sqlite.prepare('SELECT count(*) AS n FROM api_keys').get() as { n: number }).n;
}

/** Revokes a key; its agents stay but are no longer reachable with any key (see `handOverAgents`). */
export function revokeApiKey(params: { db: LineageDb; id: string }): boolean {
  return params.db.db.delete(api_keys).where(eq(api_keys.id, params.id)).run().changes > 0;
}

/** What `handOverAgents` did: the ids of the agents now `to`'s, or why nothing changed. */
export type HandOver = { ok: true; agents: string[] } | { ok: false; reason: 'target_not_found' | 'key_not_found' };

/**
 * Gives every agent of tenant `from` (a key, or one revoked since) to key `to`, in one transaction:
 * its agents and its deleted agents' ids (so `to` may register those again), nothing else changed.
 * With `revoke`, `from` is revoked in the same transaction (`key_not_found` when it is no key).
 */
export function handOverAgents(params: { db: LineageDb; from: string; to: string; revoke?: boolean }): HandOver {
  const { sqlite } = params.db;
  return sqlite.transaction((): HandOver => {
    if (!sqlite.prepare('SELECT 1 FROM api_keys WHERE id = ?').get(params.to)) return { ok: false, reason: 'target_not_found' };
    if (params.revoke && sqlite.prepare('DELETE FROM api_keys WHERE id = ?').run(params.from).changes === 0) return { ok: false, reason: 'key_not_found' };
    const moved = sqlite.prepare<[string, string], { id: string }>('UPDATE agents SET tenant_id = ? WHERE tenant_id = ? RETURNING id').all(params.to, params.from);
    sqlite.prepare('UPDATE deleted_agents SET tenant_id = ? WHERE tenant_id = ?').run(params.to, params.from);
    return { ok: true, agents: moved.map((row) => row.id).sort() };
  }).immediate();
}

/**
 * Rotation of a leaked key: a new key with the same name and admin flag takes its agents, and the
 * old key is revoked, in one transaction (its sessions and signed URLs die with it). Null when `id` is no key.
 */
export function rotateApiKey(params: { db: LineageDb; id: string; now: Date }): (IssuedApiKey & { agents: string[] }) | null {
  const { sqlite } = params.db;
  return sqlite.transaction(() => {
    const old = sqlite.prepare<[string], { name: string; admin: number }>('SELECT name, admin FROM api_keys WHERE id = ?').get(params.id);
    if (!old) return null;
    const issued = createApiKey({ db: params.db, name: old.name, now: params.now, admin: old.admin === 1 });
    const handed = handOverAgents({ db: params.db, from: params.id, to: issued.id, revoke: true });
    if (!handed.ok) throw new Error(`rotating key ${params.id}: ${handed.reason}`);
    return { ...issued, agents: handed.agents };
  }).immediate();
}

/** A key's identity: its id is the tenant id. */
export interface KeyIdentity {
  id: string;
  admin: boolean;
}

interface KeyRow {
  id: string;
  key_hash: string;
  admin: number;
}

const allKeys = new WeakMap<LineageDb, Statement<[], KeyRow>>();
const keyById = new WeakMap<LineageDb, Statement<[string], KeyRow>>();

/**
 * The key a presented secret belongs to, or null. Every stored hash is compared with
 * `timingSafeEqual`, without stopping at the first match, so the time taken says nothing about
 * which bytes of which key were right (an indexed lookup by hash would compare strings early-out).
 */
export function identifyKey(params: { db: LineageDb; key: string }): KeyIdentity | null {
  let statement = allKeys.get(params.db);
  if (!statement) {
    statement = params.db.sqlite.prepare<[], KeyRow>('SELECT id, key_hash, admin FROM api_keys');
    allKeys.set(params.db, statement);
  }
  const presented = Buffer.from(hashApiKey(params.key), 'hex');
  let match: KeyRow | null = null;
  for (const row of statement.all()) {
    const stored = Buffer.from(row.key_hash, 'hex');
    if (stored.length === presented.length && timingSafeEqual(stored, presented) && match === null) match = row;
  }
  return match ? { id: match.id, admin: match.admin === 1 } : null;
}

/** The tenant (key id) a presented key belongs to, or null when unknown. */
export function tenantForKey(params: { db: LineageDb; key: string }): string | null {
  return identifyKey(params)?.id ?? null;
}

/** The key with this id, or null once it was revoked (sessions and signed URLs die with their key). */
export function keyIdentityById(db: LineageDb, id: string): KeyIdentity | null {
  let statement = keyById.get(db);
  if (!statement) {
    statement = db.sqlite.prepare<[string], KeyRow>('SELECT id, key_hash, admin FROM api_keys WHERE id = ?');
    keyById.set(db, statement);
  }
  const row = statement.get(id);
  return row ? { id: row.id, admin: row.admin === 1 } : null;
}

const sessionById = new WeakMap<LineageDb, Statement<[string, string], KeyRow>>();

/** The key of a dashboard session, or null once the key was revoked or the session ended (sign-out, `ended_sessions`). */
export function sessionKeyIdentity(db: LineageDb, p: { keyId: string; sessionId: string }): KeyIdentity | null {
  let statement = sessionById.get(db);
  if (!statement) {
    statement = db.sqlite.prepare<[string, string], KeyRow>(
      'SELECT id, key_hash, admin FROM api_keys WHERE id = ? AND NOT EXISTS (SELECT 1 FROM ended_sessions WHERE id = ?)');
    sessionById.set(db, statement);
  }
  const row = statement.get(p.keyId, p.sessionId);
  return row ? { id: row.id, admin: row.admin === 1 } : null;
}

/** Sign-out: the session refused until `expiresAt` (unix seconds); ended sessions since expired are forgotten. */
export function endSession(db: LineageDb, p: { sessionId: string; expiresAt: number; now: Date }): void {
  db.sqlite.transaction(() => {
    db.sqlite.prepare('DELETE FROM ended_sessions WHERE expires_at <= ?').run(Math.floor(p.now.getTime() / 1000));
    db.sqlite.prepare('INSERT OR IGNORE INTO ended_sessions (id, expires_at) VALUES (?, ?)').run(p.sessionId, p.expiresAt);
  })();
}
