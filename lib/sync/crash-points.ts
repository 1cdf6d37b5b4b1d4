/**
 * Named moments of a sync's state write where the crash tests kill it (`LINEAGE_CRASH_AT=<name>`:
 * the process sends itself SIGKILL there, as a power cut or `kill -9` would stop it). Unset, each is
 * one comparison of an environment variable.
 */
export type CrashPoint = 'sent-recorded' | 'uploaded' | 'log-written' | 'files-written' | 'state-written';

export function crashPoint(name: CrashPoint): void {
  if (process.env.LINEAGE_CRASH_AT === name) process.kill(process.pid, 'SIGKILL');
}
