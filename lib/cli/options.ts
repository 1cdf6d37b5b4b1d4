import { databaseExists, DATABASE_FILE } from '@/db/client';
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

// Parsing alone lives in parse-options.ts: a command that needs no database (a sync) imports that
// one, without db/client and what it loads.
export { parseRuntime, parseSequence, requireOption } from './parse-options';
