import path from 'node:path';
import type { Adapter } from '../types';
import { readLayout, resolveAlfAgentId, selectAgent } from './agents';
import { countAgentRows, exportZeroclaw } from './export';
import { importZeroclaw, zeroclawPlannedWrites } from './import';
import { findBrainDb } from './locate';
import { refusesLinkTo } from './raw-files';
import { assertDatabaseFileForRestore, assertDatabaseNotThroughLink } from '@/lib/adapters/shared/raw-write';
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

/**
 * Memory exists when `brain.db` exists and holds rows for that agent. Read for a restore's decision:
 * a `brain.db` that is a directory (which `findBrainDb` finds rather than pass it by) refuses the restore.
 */
async function memoryPresent(workspace: string, runtimeAgent?: string): Promise<boolean> {
  const dbRel = await findBrainDb(workspace);
  if (dbRel === null) return false;
  assertDatabaseFileForRestore(workspace, dbRel);
  const file = path.join(workspace, ...dbRel.split('/'));
  return withReadCopy(file, (db) => countAgentRows(db, runtimeAgent, file) > 0);
}

/**
 * The ALF agent id a sync of `runtimeAgent` (an `agents.alias`) in this workspace uses — the
 * workspace's own id for the first agent, a derived one for the others — or null when the
 * workspace has no brain.db to tell which agent the alias is.
 */
export async function zeroclawAlfAgentId(workspace: string, runtimeAgent?: string): Promise<string | null> {
  const dbRel = await findBrainDb(workspace);
  if (dbRel === null) return null;
  // Read for `lineage restore -w` without --agent: a brain.db that is a link to a secret, a control
  // file, out of the workspace or to nothing (itself or a directory on its way), or a directory, is
  // refused before it is read, as the restore refuses it.
  assertDatabaseNotThroughLink(workspace, dbRel, (target) => refusesLinkTo(target, dbRel));
  assertDatabaseFileForRestore(workspace, dbRel);
  const file = path.join(workspace, ...dbRel.split('/'));
  const agent = await withReadCopy(file, (db) => selectAgent(readLayout(db, file), runtimeAgent));
  return resolveAlfAgentId({ workspace, agent, persist: false });
}

export { ZeroclawError } from './agents';
export { BRAIN_DB_DDL } from './schema';
export { BRAIN_SCHEMA_SIDECAR } from './raw-files';
