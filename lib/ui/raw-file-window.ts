/**
 * Which raw files of a sequence are drawn, and which of them list their record ops inline: a
 * first sync can change 500 files × 20 op links (36,000 elements). `pageSize` files at a time; op
 * links inline while `linkBudget` lasts over the files drawn (in order), the rest behind a button.
 */
export const RAW_FILES_PAGE = 100;
export const RAW_LINK_BUDGET = 200;

export interface RawFileWindow<F> {
  files: F[];
  /** Paths of the drawn files whose op links are drawn without asking. */
  inline: Set<string>;
  /** Files not drawn yet. */
  hidden: number;
}

export function rawFileWindow<F extends { path: string; record_ids: readonly string[] }>(raw: readonly F[], shown: number, linkBudget = RAW_LINK_BUDGET): RawFileWindow<F> {
  const files = raw.slice(0, shown);
  const inline = new Set<string>();
  let budget = linkBudget;
  for (const f of files) {
    if (f.record_ids.length > budget) continue;
    inline.add(f.path);
    budget -= f.record_ids.length;
  }
  return { files, inline, hidden: raw.length - files.length };
}
