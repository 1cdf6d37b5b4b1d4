/**
 * The settings of a connection that writes a data directory's database: the server's and every
 * command's (db/client.ts) and the ingest thread's (lib/storage/ingest-worker.ts). One place, so that
 * no writer lacks one of them. No imports: the ingest thread loads it without the rest of db/.
 *
 * `journal_size_limit`: a reader that holds one transaction (`lineage backup` copying the database)
 * keeps every checkpoint from passing its snapshot, so the WAL grows with everything committed
 * meanwhile. Once a checkpoint has caught up, the next commit starts the WAL again from its
 * beginning; with the limit, that commit also cuts the file back to the limit. Without it, a WAL
 * that a long backup grew to gigabytes kept that size on disk for as long as the server ran. The
 * limit is far above what arrives between two of the server's checkpoints (checkpointer.ts, every
 * 250 ms), so a server in steady use never truncates and grows the file again.
 */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

interface Pragmas {
  pragma(source: string): unknown;
}

export function setWriterPragmas(sqlite: Pragmas): void {
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma(`synchronous = ${process.env.LINEAGE_DB_SYNCHRONOUS === 'FULL' ? 'FULL' : 'NORMAL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
}
