/**
 * The data directories this process opened read-only (what a failed write's message names). Kept
 * apart from db/client.ts: the CLI's error output needs this list, and importing db/client would
 * load better-sqlite3 and drizzle into every command at start-up (an idle `lineage sync` needs neither).
 */
const readOnlyDirs = new Set<string>();

export function readOnlyDataDirs(): string[] {
  return [...readOnlyDirs];
}

export function markReadOnly(dir: string): void {
  readOnlyDirs.add(dir);
}
