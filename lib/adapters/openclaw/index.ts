import { walkFiles } from '../shared/walk';
import type { Adapter } from '../types';
import { exportOpenclaw, exportOpenclawSlots } from './export';
import { importOpenclaw, openclawPlannedWrites } from './import';
import { MEMORY_DIR, absPath, isFile } from './workspace-files';

/** True when the workspace holds `MEMORY.md` or any `*.md` under `memory/`. */
export async function openclawMemoryPresent(workspace: string): Promise<boolean> {
  if (await isFile(absPath(workspace, 'MEMORY.md'))) return true;
  return (await walkFiles(workspace, MEMORY_DIR).catch(() => [])).some((rel) => rel.endsWith('.md'));
}

/** The OpenClaw adapter (CONTRACT §3.3, §4.3, §6) with the Memory v4.1 tiered layout. */
export const openclawAdapter: Adapter = {
  runtime: 'openclaw',
  exportWorkspace: exportOpenclaw,
  exportSlots: exportOpenclawSlots,
  importSnapshot: importOpenclaw,
  plannedWrites: openclawPlannedWrites,
  memoryPresent: (workspace) => openclawMemoryPresent(workspace),
};

export { OpenclawExportError } from './export';
export { handlerFor, tierFor, type Handler, type Tier } from './handlers';
export { reconstructMemoryFiles } from './reconstruct';
