import { ArchiveError } from '@/lib/core/archive/types';
import { readOnlyDataDirs } from '@/db/read-only-dirs';
import { LedgerError } from '@/lib/ledger/errors';
import { storageError } from '@/lib/ledger/storage-errors';
import { commandTimeoutWords, storageOutOfReach, unreachableStorageError } from '@/lib/ledger/unreachable-storage';
import { SyncError } from '@/lib/sync/errors';

/** A failure the CLI reports as `{ok:false, code, error, hint}` with exit code 1. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** stdout carries exactly one compact JSON object per invocation. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** Progress and diagnostics go to stderr so stdout stays machine-readable. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

type Payload = { ok: false; code?: string; error: string; hint?: string };

export function errorPayload(error: unknown): Payload {
  if (error instanceof CliError || error instanceof SyncError) {
    return { ok: false, code: error.code, error: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  }
  if (error instanceof ArchiveError) {
    return { ok: false, code: `archive_${error.code}`, error: error.message, hint: 'the archive is malformed or unsafe; nothing was changed' };
  }
  const database = databaseFailure(error);
  if (database) return database;
  const coded = error as { code?: unknown; message?: unknown; hint?: unknown; port?: unknown; address?: unknown };
  // SQLite's own storage failures name no file: say which data directory could not be written.
  const storage = typeof coded.code === 'string' && coded.code.startsWith('SQLITE_') ? sqliteStorageError(error) : null;
  if (storage) return { ok: false, code: storage.code, error: storage.message, hint: STORAGE_HINTS[storage.code] ?? 'check the data directory (--data, $LINEAGE_DATA or ./data)' };
  if (coded.code === 'EADDRINUSE') {
    // A port taken after `lineage serve` checked it (serving.ts checkListenable says it in the same words).
    const where = typeof coded.address === 'string' ? ` (${coded.address.includes(':') ? `[${coded.address}]` : coded.address}:${String(coded.port ?? '')})` : '';
    return { ok: false, code: 'port_in_use', error: `port ${String(coded.port ?? '')} is already in use${where}: another process is listening there`, hint: 'stop the other server, or choose another port with --port (or PORT); --port 0 takes any free one' };
  }
  if (error instanceof Error && typeof coded.code === 'string' && /^[a-z_]+$/.test(coded.code)) {
    return { ok: false, code: coded.code, error: error.message, ...(typeof coded.hint === 'string' ? { hint: coded.hint } : {}) };
  }
  return { ok: false, code: 'internal_error', error: error instanceof Error ? error.message : String(error) };
}

/**
 * A command's PostgreSQL statement cancelled or its connection lost (a raw `pg` error, read by
 * lib/ledger/unreachable-storage.ts as a served request's is), or the storage's own `busy`: the codes a
 * server answers (`busy`, `database_timeout`), in a command's words, with what to do. What the
 * cancelled statement's transaction wrote was rolled back; what the command finished before stays
 * (`lineage migrate`, `doctor --repair` continue from there when run again).
 */
function databaseFailure(error: unknown): Payload | null {
  // An error in our own words (a storage that cannot be opened: `storage_unavailable`) keeps them, whatever its cause.
  const own = typeof (error as { code?: unknown } | null)?.code === 'string' && /^[a-z_]+$/.test((error as { code: string }).code);
  const mapped = error instanceof LedgerError || own ? null : unreachableStorageError(error);
  const ledger = mapped ?? (error instanceof LedgerError ? error : null);
  if (ledger?.code === 'database_timeout') {
    return { ok: false, code: 'database_timeout', ...commandTimeoutWords() };
  }
  if (ledger?.code !== 'busy') return null;
  if (mapped === null) return { ok: false, code: 'busy', error: ledger.message, hint: 'run the same command again once the other process is done' };
  if (storageOutOfReach(error)) {
    // The connection lost, maybe during a COMMIT: whether its last transaction was kept is not known here.
    return { ok: false, code: 'busy', error: mapped.message, hint: 'run the same command again once the database (or the bucket) is back; its connection was lost, so its last change may or may not have been kept' };
  }
  return {
    ok: false, code: 'busy', error: mapped.message,
    hint: 'what the cancelled statement\'s transaction wrote was rolled back: run the same command again in a moment (once the process holding the lock it waited for is done)',
  };
}

/** What to do about a storage failure of the data directory. */
const STORAGE_HINTS: Record<string, string> = {
  read_only: 'the data directory is --data DIR, $LINEAGE_DATA or ./data: it and its lineage.db must be writable',
  disk_full: 'free some space on that disk, then retry',
  busy: 'retry once the other process is done',
};

/** A SQLite storage failure, naming the data directories opened read-only when there are any. */
function sqliteStorageError(error: unknown) {
  const dirs = readOnlyDataDirs();
  return storageError(error, dirs.length > 0 ? dirs.join(', ') : null);
}

/** What a failed command writes: its JSON payload for stdout, its lines for stderr. */
export function failureOutput(error: unknown): { stdout: string; stderr: string } {
  const payload = errorPayload(error);
  let stderr = `error: ${payload.error}${payload.hint ? `\nhint: ${payload.hint}` : ''}\n`;
  if (payload.code === 'internal_error' && error instanceof Error && error.stack) stderr += `${error.stack}\n`;
  return { stdout: JSON.stringify(payload) + '\n', stderr };
}

/** The single exit point for failures. */
export function failAndExit(error: unknown): never {
  const { stdout, stderr } = failureOutput(error);
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exit(1);
}
