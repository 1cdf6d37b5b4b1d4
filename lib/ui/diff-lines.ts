/**
 * A word diff cut into lines, and the unchanged stretches between changes folded away (pure).
 * A line is changed when any of its words, or the line break that ends it, was inserted or deleted.
 */
import type { DiffSegment } from './diff';

export interface DiffLineOfWords {
  segments: DiffSegment[];
  changed: boolean;
}

export function diffLines(segments: DiffSegment[]): DiffLineOfWords[] {
  const lines: DiffLineOfWords[] = [];
  let current: DiffLineOfWords = { segments: [], changed: false };
  for (const s of segments) {
    const parts = s.text.split('\n');
    parts.forEach((part, i) => {
      if (i > 0) {
        if (s.op !== 'equal') current.changed = true;
        lines.push(current);
        current = { segments: [], changed: false };
      }
      if (part === '') return;
      current.segments.push({ op: s.op, text: part });
      if (s.op !== 'equal') current.changed = true;
    });
  }
  if (current.segments.length > 0 || lines.length === 0) lines.push(current);
  return lines;
}

/** Shown lines (`line`) and folded stretches (`fold`: `count` unchanged lines from `start`). */
export type DiffRow = { kind: 'line'; index: number } | { kind: 'fold'; start: number; count: number };

/** How many unchanged lines stay visible around each change. */
export const CONTEXT_LINES = 3;
/** How many lines one "show more" reveals. */
export const REVEAL_STEP = 40;

/**
 * The rows to draw: every changed line with `context` unchanged lines around it; each longer
 * unchanged stretch folded, minus the `revealed[start]` lines already shown from its top.
 */
export function foldRows(lines: readonly { changed: boolean }[], revealed: ReadonlyMap<number, number> = new Map(), context = CONTEXT_LINES): DiffRow[] {
  const keep = lines.map(() => false);
  lines.forEach((line, i) => {
    if (!line.changed) return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j += 1) keep[j] = true;
  });
  const rows: DiffRow[] = [];
  let i = 0;
  while (i < lines.length) {
    if (keep[i]) {
      rows.push({ kind: 'line', index: i });
      i += 1;
      continue;
    }
    const start = i;
    while (i < lines.length && !keep[i]) i += 1;
    const shown = Math.min(revealed.get(start) ?? 0, i - start);
    for (let j = start; j < start + shown; j += 1) rows.push({ kind: 'line', index: j });
    if (start + shown < i) rows.push({ kind: 'fold', start, count: i - start - shown });
  }
  return rows;
}
