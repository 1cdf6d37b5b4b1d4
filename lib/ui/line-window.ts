/**
 * The lines of a file a view draws at once (pure): a window `[start, end]` (1-based, inclusive)
 * that opens on the first `FIRST_LINES`, grows by `LINE_STEP` either way on request, and never
 * holds more than `MAX_LINES` — growing one end past that drops lines from the other, so a
 * 5,000-line file never puts more than ~2,000 rows in the page (issue 20 §5). A link to a line
 * further down opens a window around it instead of drawing everything above it.
 */
export const FIRST_LINES = 400;
export const LINE_STEP = 400;
export const MAX_LINES = 2000;
/** Lines above a linked-to line that its window also shows (so the reader sees what precedes it). */
export const LEAD_LINES = 5;

export interface LineWindow {
  start: number;
  end: number;
}

export function firstWindow(total: number, first = FIRST_LINES): LineWindow {
  return { start: 1, end: Math.min(total, first) };
}

/** `step` more lines below the window (and as many fewer above it as `max` asks). */
export function showLater(w: LineWindow, total: number, step = LINE_STEP, max = MAX_LINES): LineWindow {
  const end = Math.min(total, w.end + step);
  return { start: Math.max(w.start, end - max + 1), end };
}

/** `step` more lines above the window (and as many fewer below it as `max` asks). */
export function showEarlier(w: LineWindow, step = LINE_STEP, max = MAX_LINES): LineWindow {
  const start = Math.max(1, w.start - step);
  return { start, end: Math.min(w.end, start + max - 1) };
}

/** The window that shows `line` near its top, unchanged when `line` is already in `w`. */
export function windowAround(w: LineWindow, line: number, total: number, size = FIRST_LINES): LineWindow {
  if (line >= w.start && line <= w.end) return w;
  const start = Math.max(1, Math.min(line, total) - LEAD_LINES);
  return { start, end: Math.min(total, start + size - 1) };
}
