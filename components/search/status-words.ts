/** The fact's status in words, as the search page says it. */
import type { FactStatus } from '@/lib/history/search/status';

/** "still present at #41" / "removed at #25" / "its memory was deleted at #12". */
export function statusWords(status: FactStatus): string {
  if (status.present) return `still present at #${status.last_seen_sequence ?? 0}`;
  if (status.gone_at_sequence === null) return 'never present';
  return status.deleted ? `its memory was deleted at #${status.gone_at_sequence}` : `removed at #${status.gone_at_sequence}`;
}

/** "Nov 16": the sentence's short date (the full time is in the title). */
export function shortDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/** An appearance's op in words: a `rename` (a move within its file, engine.ts `appearanceOp`) is "renamed", a move between files "moved". */
export const OP_WORDS: Record<string, string> = { create: 'created', update: 'edited', move: 'moved', rename: 'renamed', delete: 'deleted' };
