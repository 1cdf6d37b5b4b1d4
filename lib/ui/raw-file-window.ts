/**
 * How a sequence's raw files are drawn: `RAW_FILES_PAGE` files a page (the API pages them, the
 * list keeps a bounded window of pages), and which of the drawn files list their record ops inline
 * — a first sync can change 500 files × 20 op links (36,000 elements): op links inline while
 * `linkBudget` lasts over the files drawn (in order), the rest behind a button.
 */
export const RAW_FILES_PAGE = 100;
export const RAW_LINK_BUDGET = 200;

/** Paths of the drawn files whose op links are drawn without asking. */
export function inlineLinks(files: readonly { path: string; record_ids: readonly string[] }[], linkBudget = RAW_LINK_BUDGET): Set<string> {
  const inline = new Set<string>();
  let budget = linkBudget;
  for (const f of files) {
    if (f.record_ids.length > budget) continue;
    inline.add(f.path);
    budget -= f.record_ids.length;
  }
  return inline;
}
