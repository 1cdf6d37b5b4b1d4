/**
 * The texts of a comparison's changed files, for their diffs: the first COMPARE_DIFFED_FILES only, small
 * UTF-8 files, within a total budget; the others are listed with a link to the workspace's compare.
 */
import type { WorkspaceComparison } from '@/lib/history/queries/compare';
import type { LineageStorage } from '@/lib/storage/types';
import type { ChangedFile } from '@/components/compare/FileEntries';
import { COMPARE_DIFFED_FILES } from '@/components/compare/limits';

/** Larger files are linked to the workspace's compare instead (it draws them line by line). */
const MAX_FILE_BYTES = 256 * 1024;
/** All the texts one page carries (both sides of every file drawn). */
const MAX_TOTAL_BYTES = 4 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array | null): string | null {
  if (!bytes) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

export async function changedFileTexts(storage: LineageStorage, agentId: string, comparison: WorkspaceComparison): Promise<ChangedFile[]> {
  let budget = MAX_TOTAL_BYTES;
  const out: ChangedFile[] = [];
  // One file after another: whether a file fits depends on what the ones before it used of the budget.
  for (const [i, file] of comparison.files.changed.entries()) {
    if (i >= COMPARE_DIFFED_FILES) {
      out.push({ ...file, texts: null, listed: true });
      continue;
    }
    const size = file.before.size + file.after.size;
    if (file.before.size > MAX_FILE_BYTES || file.after.size > MAX_FILE_BYTES || size > budget) {
      out.push({ ...file, texts: null });
      continue;
    }
    const read = async (seq: number) => text(await storage.getWorkspaceFile({ agentId, seq, path: file.path }));
    const [before, after] = await Promise.all([read(comparison.from), read(comparison.to)]);
    if (before === null || after === null) {
      out.push({ ...file, texts: null });
      continue;
    }
    budget -= size;
    out.push({ ...file, texts: { before, after } });
  }
  return out;
}
