import path from 'node:path';
import type { Adapter } from '../types';
import { countAgentRows, exportZeroclaw } from './export';
import { importZeroclaw, zeroclawPlannedWrites } from './import';
import { findBrainDb } from './locate';
import { withReadCopy } from './sqlite-io';

/**
 * The ZeroClaw adapter (CONTRACT §4.4): one shared `brain.db`, one agent's slice at a
 * time, selected by `runtimeAgent` (= `agents.alias`).
 */
export const zeroclawAdapter: Adapter = {
  runtime: 'zeroclaw',
  exportWorkspace: exportZeroclaw,
  importSnapshot: importZeroclaw,
  plannedWrites: zeroclawPlannedWrites,
  memoryPresent,
};

/** Memory exists when `brain.db` exists and holds rows for that agent. */
async function memoryPresent(workspace: string, runtimeAgent?: string): Promise<boolean> {
  const dbRel = await findBrainDb(workspace);
  if (dbRel === null) return false;
  return withReadCopy(path.join(workspace, ...dbRel.split('/')), (db) => countAgentRows(db, runtimeAgent) > 0);
}

export { ZeroclawError } from './agents';
export { BRAIN_DB_DDL } from './schema';
export { BRAIN_SCHEMA_SIDECAR } from './raw-files';
