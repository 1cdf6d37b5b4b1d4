/**
 * `<data>/rebuilding.pid`: held by `lineage index --rebuild` while it holds the database's write lock,
 * so a server on the same data directory refuses uploads at once (503 + Retry-After) instead of
 * blocking its event loop on the lock and failing with `database is locked`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from '@/lib/core/process-alive';

const MARKER = 'rebuilding.pid';

/** A description of the rebuild running on `dataDir` ("pid N"), or null (none, or its process died). */
export function rebuildInProgress(dataDir: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, MARKER), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid) ? `pid ${pid}` : null;
}

/** Runs `work` with the marker set (removed afterwards, also on failure). */
export async function withRebuildMarker<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const file = path.join(dataDir, MARKER);
  fs.writeFileSync(file, `${process.pid}\n`);
  try {
    return await work();
  } finally {
    fs.rmSync(file, { force: true });
  }
}
