/** The texts of a comparison's changed files, for their diffs: small UTF-8 files only, within a total budget. */
import type { LineageDb } from '@/db/client';
import { getWorkspaceFile, type WorkspaceComparison } from '@/lib/history/queries';
import type { ChangedFile } from '@/components/compare/FileEntries';

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

export function changedFileTexts(db: LineageDb, agentId: string, comparison: WorkspaceComparison): ChangedFile[] {
  let budget = MAX_TOTAL_BYTES;
  return comparison.files.changed.map((file): ChangedFile => {
    const size = file.before.size + file.after.size;
    if (file.before.size > MAX_FILE_BYTES || file.after.size > MAX_FILE_BYTES || size > budget) return { ...file, texts: null };
    const before = text(getWorkspaceFile({ db, agentId, seq: comparison.from, path: file.path }));
    const after = text(getWorkspaceFile({ db, agentId, seq: comparison.to, path: file.path }));
    if (before === null || after === null) return { ...file, texts: null };
    budget -= size;
    return { ...file, texts: { before, after } };
  });
}
