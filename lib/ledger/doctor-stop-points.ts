/**
 * Where the race tests stop `lineage doctor` (`LINEAGE_DOCTOR_STOP_AT=<name>`: the process sends itself
 * SIGSTOP). `recheck`: a deleted agent's leftovers looked at again under the lock that holds off the
 * id's registration and uploads, none removed yet (both backends: lib/ledger/consistency.ts
 * `removeDeletedLeftovers`, lib/storage/pg/delete-agent.ts `removeLeftoverObjects`).
 */
export function doctorStopPoint(name: 'recheck'): void {
  if (process.env.LINEAGE_DOCTOR_STOP_AT === name) process.kill(process.pid, 'SIGSTOP');
}
