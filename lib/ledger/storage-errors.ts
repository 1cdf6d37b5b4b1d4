/**
 * File-system and SQLite failures a user can act on, turned into ledger errors that say what to do:
 * a full disk (`disk_full`, HTTP 507), a data directory that cannot be written (`read_only`) and a
 * database another process holds locked (`busy`, 503 + Retry-After).
 * The scale-out storage out of space is `disk_full` too (scaleOutFullError): PostgreSQL's disk full
 * and the object store's quota reached or no capacity left.
 * Anything else is left as it is.
 */
import { LedgerError } from './errors';

const FULL = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM', 'SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_READONLY_RECOVERY', 'SQLITE_CANTOPEN']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * PostgreSQL's SQLSTATE 53100 `disk_full` (it could not extend a table, an index or its WAL).
 * Not the rest of class 53: 53200 out_of_memory and 53400 configuration_limit_exceeded are no
 * space to free, and 53300 too_many_connections is `busy` (unreachable-storage.ts).
 */
const PG_DISK_FULL = '53100';

/** An object store's words for no room left: a bucket or user quota reached (radosgw, 403) or no capacity (507). */
const S3_FULL = new Set(['QuotaExceeded', 'InsufficientCapacity']);

/**
 * `disk_full` for the scale-out storage out of space, naming which store is full: PostgreSQL's
 * disk full (SQLSTATE 53100), or the object store's bucket at its quota (radosgw `QuotaExceeded`,
 * HTTP 403) or with no capacity left (HTTP 507 Insufficient Storage). The error or one of its causes.
 * Null for anything else. What failed was not committed: the ledger row is written after its blob,
 * in one transaction, so nothing was stored (a blob written before the database refused may stay;
 * no blob is deleted automatically).
 */
export function scaleOutFullError(error: unknown): LedgerError | null {
  if (error instanceof LedgerError) return null;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code, Code, BucketName, $metadata } = e as Error & { code?: unknown; Code?: unknown; BucketName?: unknown; $metadata?: { httpStatusCode?: number } };
    if (code === PG_DISK_FULL) {
      return new LedgerError('disk_full', 'the database has no space left (PostgreSQL disk_full, SQLSTATE 53100): free or add space on the database server\'s disk and retry (nothing was stored)', {}, { cause: error });
    }
    if ($metadata === undefined) continue;
    const words = typeof Code === 'string' ? Code : e.name;
    if (S3_FULL.has(words) || $metadata.httpStatusCode === 507) {
      const bucket = typeof BucketName === 'string' && BucketName !== '' ? `bucket ${BucketName}` : 'bucket';
      const why = words === 'QuotaExceeded' ? 'its quota is reached: QuotaExceeded' : `no capacity left: ${words}`;
      return new LedgerError('disk_full', `the object store's ${bucket} has no space left for this upload (${why}): raise the bucket's or its owner's quota, or free space, and retry (nothing was stored)`, {}, { cause: error });
    }
  }
  return null;
}

/**
 * The ledger error for a storage failure under `dir` (null: a data directory the caller cannot
 * name, as SQLite's own errors name no file), or null when `error` is not one.
 */
export function storageError(error: unknown, dir: string | null): LedgerError | null {
  if (error instanceof LedgerError) return null;
  const scaleOutFull = scaleOutFullError(error);
  if (scaleOutFull) return scaleOutFull;
  const code = codeOf(error);
  if (code === undefined) return null;
  const details = dir === null ? {} : { path: dir };
  if (FULL.has(code)) {
    return new LedgerError('disk_full', `no space left on the disk holding ${dir ?? 'the data directory'}: free some space and retry (nothing was stored)`, details, { cause: error });
  }
  if (READ_ONLY.has(code)) {
    return new LedgerError('read_only', `the data directory${dir === null ? '' : ` ${dir}`} cannot be written (${code}): make it writable to store uploads; reads still work`, details, { cause: error });
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new LedgerError('busy', `another process holds the write lock of the database in ${dir ?? 'the data directory'} (an index rebuild?); retry shortly`, details, { cause: error });
  }
  return null;
}

/** Runs `work`, rethrowing a storage failure under `dir` as its ledger error. */
export async function mapStorageErrors<T>(dir: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storageError(error, dir) ?? error;
  }
}
