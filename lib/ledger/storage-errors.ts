/**
 * File-system and SQLite failures a user can act on, turned into ledger errors that say what to do:
 * a full disk (`disk_full`, HTTP 507), a data directory that cannot be written (`read_only`) and a
 * database another process holds locked (`busy`, 503 + Retry-After).
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
 * The ledger error for a storage failure under `dir` (null: a data directory the caller cannot
 * name, as SQLite's own errors name no file), or null when `error` is not one.
 */
export function storageError(error: unknown, dir: string | null): LedgerError | null {
  if (error instanceof LedgerError) return null;
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
