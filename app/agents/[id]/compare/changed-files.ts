/**
 * Which of a comparison's changed files the page draws a diff for: the first COMPARE_DIFFED_FILES,
 * each side at most MAX_FILE_BYTES and all of them within a total budget (decided from the sizes in
 * the comparison); the others are listed with a link to the workspace's compare. The server reads no
 * file: the browser fetches the two texts of a drawn file from the workspace file API (BrowserDiff),
 * so the document does not carry them (10 files of ~10 KB were ~210 KB of the compare page's RSC payload).
 */
import type { WorkspaceComparison } from '@/lib/history/queries/compare';
import type { ChangedFile } from '@/components/compare/FileEntries';
import { COMPARE_DIFFED_FILES } from '@/components/compare/limits';

/** Larger files are linked to the workspace's compare instead (it draws them line by line). */
export const MAX_FILE_BYTES = 256 * 1024;
/** All the texts one page's diffs fetch (both sides of every file drawn). */
export const MAX_TOTAL_BYTES = 4 * 1024 * 1024;

export function changedFilePlan(comparison: Pick<WorkspaceComparison, 'files'>): ChangedFile[] {
  let budget = MAX_TOTAL_BYTES;
  // In order: whether a file fits depends on what the ones before it used of the budget.
  return comparison.files.changed.map((file, i): ChangedFile => {
    if (i >= COMPARE_DIFFED_FILES) return { ...file, diff: 'listed' };
    const size = file.before.size + file.after.size;
    if (file.before.size > MAX_FILE_BYTES || file.after.size > MAX_FILE_BYTES || size > budget) return { ...file, diff: 'too-large' };
    budget -= size;
    return { ...file, diff: 'browser' };
  });
}
