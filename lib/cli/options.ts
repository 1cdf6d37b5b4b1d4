import { databaseExists, DATABASE_FILE } from '@/db/client';
import { isRuntime, type Runtime } from '@/lib/adapters/types';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { CliError } from './output';

/**
 * The data directory a command that only reads one works on (`--data`, `$LINEAGE_DATA`, `./data`),
 * which must exist: a mistyped path is an error, not a new empty data directory.
 */
export function existingDataDir(flag: string | undefined): string {
  const dir = resolveDataDir(flag);
  if (!databaseExists(dir)) {
    throw new CliError('data_not_found', `no lineage data directory at ${dir} (no ${DATABASE_FILE} there)`,
      'pass --data DIR (or set LINEAGE_DATA) to the directory lineage sync, serve or demo wrote');
  }
  return dir;
}

export function parseRuntime(value: string | undefined): Runtime {
  const runtime = value ?? 'openclaw';
  if (!isRuntime(runtime)) throw new CliError('invalid_runtime', `unknown runtime "${runtime}"`, 'use one of: openclaw, zeroclaw, hermes');
  return runtime;
}

export function parseSequence(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError('invalid_argument', `${flag} must be a non-negative integer, got "${value}"`);
  return Number(value);
}

export function requireOption<T>(value: T | undefined, flag: string, hint?: string): T {
  if (value === undefined || value === '') throw new CliError('invalid_argument', `missing required option ${flag}`, hint);
  return value;
}
