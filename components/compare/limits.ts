/** The compare page's bounds (app/agents/[id]/compare/page.tsx): what one page draws at most. */

/**
 * Entries of each kind drawn at first, unless `?limit=` asks for more; the counts say how many there are
 * in all. Far-apart sequences change thousands of memories: drawing every one made a 59,000-element page.
 */
export const COMPARE_FIRST_LIMIT = 25;
/** Entries of each kind drawn when asked for more (`?limit=`): the page's largest. */
export const COMPARE_MORE_LIMIT = 200;
/** Changed files drawn with their diff; the others are listed with a link to the workspace's compare. */
export const COMPARE_DIFFED_FILES = 10;
/**
 * Memories whose word diff the server draws (the first screen, in page order); the others' diffs are
 * drawn after hydration (HydratedDiff). Drawing every diff on the server made a third of the page's
 * elements; drawing none after hydration moved the largest paint after it (LCP 306 → 772 ms, near compare).
 */
export const COMPARE_SERVER_DIFFS = 8;
