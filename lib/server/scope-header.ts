/**
 * How the guard in front of Next.js (dashboard-guard.ts) tells pages and route handlers whose data
 * they may show: request headers it sets after removing any the client sent, vouched for by a
 * per-process token the client cannot know. Without that token app code refuses to answer, so a
 * dashboard reached any other way shows nothing.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { TenantScope } from '@/lib/ledger/agents';

export const SCOPE_HEADER = 'x-lineage-scope';
export const GUARD_HEADER = 'x-lineage-guard';
export const SIGNED_IN_HEADER = 'x-lineage-signed-in';

const globalForGuard = globalThis as unknown as { lineageGuardToken?: string };

/** The process's guard token (made on first use by the server). */
export function guardToken(): string {
  globalForGuard.lineageGuardToken ??= randomBytes(32).toString('hex');
  return globalForGuard.lineageGuardToken;
}

/** `all` (every tenant), `local` (agents synced with --data), `key:<id>` (one key's agents). */
export function encodeScope(scope: TenantScope): string {
  if (scope === undefined) return 'all';
  return scope === null ? 'local' : `key:${scope}`;
}

/** The headers the guard sets, for calling route handlers directly (tests). */
export function guardHeaders(scope: TenantScope): Record<string, string> {
  return { [GUARD_HEADER]: guardToken(), [SCOPE_HEADER]: encodeScope(scope) };
}

/** Thrown when a request did not come through the guard. */
export class UnguardedRequest extends Error {
  readonly code = 'unauthorized';
  constructor() {
    super('this request did not pass the dashboard guard of `lineage serve`');
    this.name = 'UnguardedRequest';
  }
}

/** The tenant scope the guard set for this request; throws `UnguardedRequest` without a valid token. */
export function scopeFromHeaders(get: (name: string) => string | null): TenantScope {
  const expected = globalForGuard.lineageGuardToken;
  const given = get(GUARD_HEADER);
  if (!expected || !given || given.length !== expected.length || !timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
    throw new UnguardedRequest();
  }
  const scope = get(SCOPE_HEADER) ?? '';
  if (scope === 'all') return undefined;
  if (scope === 'local') return null;
  if (scope.startsWith('key:') && scope.length > 4) return scope.slice(4);
  throw new UnguardedRequest();
}
