/** Runtimes whose memory lives in a database the restore rebuilds from the records (no raw bytes of it are synced). */
export type DatabaseRuntime = 'zeroclaw' | 'hermes';

export function databaseRuntime(sourceRuntime: string | null): DatabaseRuntime | null {
  return sourceRuntime === 'zeroclaw' || sourceRuntime === 'hermes' ? sourceRuntime : null;
}
