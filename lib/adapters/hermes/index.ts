import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { isFileInside } from '@/lib/adapters/shared';
import { tableExists, withReadCopy } from '@/lib/adapters/zeroclaw/sqlite-io';
import type { Adapter } from '../types';
import { CURATED_FILE } from './curated';
import { exportHermes } from './export';
import { hermesPlannedWrites, importHermes } from './import';
import { STATE_DB_FILE } from './raw-files';

/** The Hermes adapter (CONTRACT §4.5): curated notes plus `state.db` sessions of one Hermes home. */
export const hermesAdapter: Adapter = {
  runtime: 'hermes',
  exportWorkspace: exportHermes,
  importSnapshot: importHermes,
  plannedWrites: hermesPlannedWrites,
  memoryPresent,
};

/** Memory exists when `memories/MEMORY.md` exists or `state.db` holds sessions (none in a home not made yet: a restore's `-w`). */
async function memoryPresent(home: string): Promise<boolean> {
  if ((await lstat(home).catch(() => null)) === null) return false;
  if (await isFileInside(home, CURATED_FILE)) return true;
  if (!(await isFileInside(home, STATE_DB_FILE))) return false;
  return withReadCopy(path.join(home, STATE_DB_FILE), (db) =>
    tableExists(db, 'sessions') && db.prepare('SELECT 1 FROM sessions LIMIT 1').get() !== undefined,
  );
}

export { splitCuratedEntries, curatedRecords } from './curated';
export { renderTranscript } from './transcript';
export { redactConfigYaml } from './redact';
export { STATE_DB_DDL } from './schema';
