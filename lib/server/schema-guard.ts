/**
 * A running server whose database a newer lineage migrated under it (a `lineage` command of a newer
 * release run on its data directory, or a newer server on the same PostgreSQL database) answers every
 * request, protocol and dashboard, `503 schema_newer` naming the fix, instead of writing by rules the
 * migrated database no longer follows (a server from before migration 0015 failed every upload
 * with HTTP 500 after a newer command migrated its data directory).
 *
 * When it looks: the embedded database (SQLite, in process: a read of a few rows, prepared once)
 * before every request; PostgreSQL (a round trip) before every request that may write (any method
 * but GET, HEAD and OPTIONS), before a read when the last look is older than `readEveryMs`, and
 * again once a protocol request's body has arrived (before anything of it is written) and after any
 * protocol answer of 500 (an unexpected database error) — none of these for `readEveryMs` after a look
 * that failed (the database out of reach: the request meets that itself). Once seen, it stays: only
 * a restart with the newer lineage serves the data directory again.
 */
import type { IncomingMessage } from 'node:http';
import { schemaNewerMessage, type SchemaNewer } from '@/db/newer-schema';
import type { LineageStorage } from '@/lib/storage/types';
import { ServiceError } from './errors';
import { jsonResponse, type ProtocolRequest, type ProtocolResponse } from './protocol-http';

/** A PostgreSQL server's reads look at most this often (embedded: every request). */
export const SCHEMA_READ_CHECK_MS = 1_000;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SchemaGuard {
  /** The 503 to answer `req` with, when the database is newer than this server; null to serve it. */
  refusal(req: Pick<IncomingMessage, 'method' | 'headers'>): Promise<ProtocolResponse | null>;
  /**
   * After a protocol answer of 5xx: the 503 to answer instead, when the database is newer — looked at
   * again after an unexpected failure (500), not after a storage one (the database out of reach).
   */
  afterFailure(req: Pick<IncomingMessage, 'method' | 'headers'>, status: number): Promise<ProtocolResponse | null>;
  /**
   * `request`, whose body, once read whole, is followed by another look: an upload whose body took
   * long (a 256 MiB snapshot on a slow link) is refused, not written, when a newer lineage migrated
   * the database meanwhile. The refusal is a 503 `ServiceError`, which `route` answers as `schema_newer`.
   */
  guardBody(request: ProtocolRequest): ProtocolRequest;
}

export function createSchemaGuard(
  storage: Pick<LineageStorage, 'backend' | 'newerSchema'>,
  options: { log?: (line: string) => void; now?: () => number; readEveryMs?: number } = {},
): SchemaGuard {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = options.now ?? (() => performance.now());
  const readEveryMs = options.readEveryMs ?? (storage.backend === 'embedded' ? 0 : SCHEMA_READ_CHECK_MS);
  let newer: SchemaNewer | null = null;
  let lookedAt = -Infinity;
  /** When a look last failed (the database out of reach): none for `readEveryMs` after, the request meets the failure itself. */
  let failedAt = -Infinity;
  let looking: Promise<void> | null = null;

  const look = (): Promise<void> => {
    looking ??= (async () => {
      try {
        const found = await storage.newerSchema();
        if (found && newer === null) {
          newer = found;
          log(`[lineage serve] ${schemaNewerMessage(found)}; every request is answered 503 schema_newer`);
        }
      } catch {
        // The database cannot be read now: the request meets the same failure and answers it as usual,
        // without waiting for a second connection attempt of its own first.
        failedAt = now();
      } finally {
        lookedAt = now();
        looking = null;
      }
    })();
    return looking;
  };

  /** Whether to look before a request that may write (`write`) or only reads. */
  const due = (write: boolean): boolean => {
    if (newer !== null) return false;
    if (readEveryMs <= 0) return true;
    const at = now();
    return at - failedAt >= readEveryMs && (write || at - lookedAt >= readEveryMs);
  };

  const answer = (req: Pick<IncomingMessage, 'method' | 'headers'>): ProtocolResponse | null =>
    newer === null ? null : schemaNewerResponse(newer, req);

  return {
    async refusal(req) {
      if (due(!READ_METHODS.has(req.method ?? 'GET'))) await look();
      return answer(req);
    },
    async afterFailure(req, status) {
      if (status === 500 && due(true)) await look();
      return answer(req);
    },
    guardBody(request) {
      return {
        method: request.method,
        url: request.url,
        headers: request.headers,
        async readBody(maxBytes) {
          const body = await request.readBody(maxBytes);
          if (body.byteLength > 0 && due(true)) await look();
          if (newer !== null) throw new ServiceError('unavailable', schemaNewerMessage(newer));
          return body;
        },
      };
    },
  };
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** `503 schema_newer`: JSON (`{error, code}`, as every other refusal), or a page for a browser asking for one. */
export function schemaNewerResponse(newer: SchemaNewer, req: Pick<IncomingMessage, 'headers'>): ProtocolResponse {
  const message = schemaNewerMessage(newer);
  const accept = String(req.headers.accept ?? '');
  if (accept.includes('text/html')) {
    const page = `<!doctype html><html><head><meta charset="utf-8"><title>ALF Lineage: restart needed</title></head><body><h1>Restart needed</h1><p>${escapeHtml(message)}.</p></body></html>`;
    return { status: 503, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'" }, body: Buffer.from(page, 'utf8') };
  }
  return jsonResponse({ error: message, code: 'schema_newer' }, 503, { 'cache-control': 'no-store' });
}
