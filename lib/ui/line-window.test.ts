import { describe, expect, it } from 'vitest';
import { FIRST_LINES, firstWindow, LEAD_LINES, MAX_LINES, showEarlier, showLater, windowAround } from './line-window';

describe('line window', () => {
  it('opens on the first lines, or on the whole of a short file', () => {
    expect(firstWindow(5000)).toEqual({ start: 1, end: FIRST_LINES });
    expect(firstWindow(12)).toEqual({ start: 1, end: 12 });
    expect(firstWindow(0)).toEqual({ start: 1, end: 0 });
  });

  it('grows downwards to the end of the file and never holds more than MAX_LINES', () => {
    let w = firstWindow(5000);
    const sizes: number[] = [];
    while (w.end < 5000) {
      w = showLater(w, 5000);
      sizes.push(w.end - w.start + 1);
    }
    expect(w.end).toBe(5000);
    expect(Math.max(...sizes)).toBe(MAX_LINES);
    expect(w.start).toBe(5000 - MAX_LINES + 1);
  });

  it('grows upwards back to line 1, dropping lines below past MAX_LINES', () => {
    let w = { start: 4001, end: 5000 };
    while (w.start > 1) {
      w = showEarlier(w);
      expect(w.end - w.start + 1).toBeLessThanOrEqual(MAX_LINES);
    }
    expect(w).toEqual({ start: 1, end: MAX_LINES });
  });

  it('moves to a line outside the window, with a few lines before it; keeps a window that shows it', () => {
    const w = firstWindow(5000);
    expect(windowAround(w, 10, 5000)).toBe(w);
    expect(windowAround(w, 4010, 5000)).toEqual({ start: 4010 - LEAD_LINES, end: 4010 - LEAD_LINES + FIRST_LINES - 1 });
    expect(windowAround(w, 4990, 5000)).toEqual({ start: 4990 - LEAD_LINES, end: 5000 });
  });
});
