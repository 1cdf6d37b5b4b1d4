import { isRustWhitespace, rustLines, rustTrim } from './rust-str';

/**
 * One chunk of a markdown file (CONTRACT §4.3). `heading` is null for the preamble
 * and for whole-file chunks; line numbers are 1-based and inclusive.
 */
export interface Section {
  heading: string | null;
  content: string;
  lineStart: number;
  lineEnd: number;
}

const HEADING_PREFIX = '## ';
const FENCE_PREFIX = '```';

/**
 * Split-by-heading exactly as the reference: Rust `str::lines()` (so `\r\n` and a final
 * newline behave as in Rust), a line starting with `## ` at column 0 outside a code
 * fence opens a section, lines starting with ```` ``` ```` toggle the fence, and text
 * before the first heading is the preamble. Content is the section's lines joined with
 * `\n`, heading line included. Headed sections with nothing but blank lines after the
 * heading, and preambles holding only blank lines and `#` title lines, are dropped
 * (their line numbers still count, so later sections keep file positions).
 *
 * Lines are walked as ranges of the text: a section's content is one slice of it (its lines with
 * the `\n`s between them), unless a `\r` was cut from the end of one of its lines.
 */
export function splitSections(text: string): Section[] {
  const sections: Section[] = [];
  walkSections(text, 0, 0, sections, null, null);
  return sections;
}

/**
 * splitSections, and where each section starts in the text (`starts[i]`: the offset of section i's
 * first line) — what `sectionsAgain` takes of the current version.
 */
export function splitSectionsAt(text: string): { sections: Section[]; starts: number[] } {
  const sections: Section[] = [];
  const starts: number[] = [];
  walkSections(text, 0, 0, sections, starts, null);
  return { sections, starts };
}

/**
 * The walk of splitSections from offset `from`, the start of line `line + 1` (0: the start of the
 * text, a preamble open; else a line the walk is known to start a section at: a `## ` line outside a
 * fence). `stop(at)`: asked at each later `## ` line outside a fence; true ends the walk there, the
 * open section pushed as the line's heading would push it. Returns the offset it stopped at (else
 * the text's length) and that line's number.
 */
function walkSections(text: string, from: number, line: number, sections: Section[], starts: number[] | null, stop: ((at: number) => boolean) | null): { at: number; line: number } {
  let current = new OpenSection(null, line + 1, from);
  let inFence = false;
  for (let at = from; at < text.length; line++) {
    const newline = text.indexOf('\n', at);
    const next = newline < 0 ? text.length : newline + 1;
    let end = newline < 0 ? text.length : newline;
    const cut = end > at && text.charCodeAt(end - 1) === 0x0d;
    if (cut) end--;
    // A prefix cannot match across the line's end: `\r` and `\n` are in neither prefix.
    if (text.startsWith(FENCE_PREFIX, at)) inFence = !inFence;
    else if (!inFence && text.startsWith(HEADING_PREFIX, at)) {
      if (stop !== null && at > from && stop(at)) {
        current.pushIfKept(sections, text, starts);
        return { at, line: line + 1 };
      }
      current.pushIfKept(sections, text, starts);
      current = new OpenSection(rustTrim(text.slice(at + HEADING_PREFIX.length, end)), line + 1, at);
    }
    current.add(text, at, end, cut);
    at = next;
  }
  current.pushIfKept(sections, text, starts);
  return { at: text.length, line: line + 1 };
}

/**
 * `splitSections(before)`, exactly, for an earlier version `before` of a text whose sections
 * (`now`, with `starts` from splitSectionsAt) are known: only the part of `before` around what
 * differs is walked. The walk is a function of the lines before each point, so:
 * - a section of `now` closed by a `## ` line whose whole line (its newline included) lies in the
 *   common prefix is a section of `before`, at the same index — as is that `## ` line's section's
 *   start (the walk is outside a fence there, in both). `before` is walked again from the last such
 *   line (from its start when there is none);
 * - a section of `now` that starts inside the common suffix, when `before`'s walk reaches a line
 *   start at the same place outside a fence (a `## ` line there too, the same text after it), is
 *   followed in both by the same lines from the same state: that section and every later one are
 *   `before`'s, their line numbers moved by the difference in line counts. The walk stops at the
 *   first such line; when there is none, it walks to the end.
 * A section taken over is the same object as `now`'s (when its lines did not move), so comparing
 * it with `now`'s costs nothing.
 */
export function sectionsAgain(before: string, now: string, sections: readonly Section[], starts: readonly number[]): Section[] {
  const prefix = commonPrefix(before, now);
  const suffix = commonSuffix(before, now, Math.min(before.length, now.length) - prefix);
  // The last section whose `## ` line (its newline included) is in the common prefix.
  let j = -1;
  for (let i = sections.length - 1; i >= 0; i--) {
    const start = starts[i]!;
    if (sections[i]!.heading === null || start >= prefix) continue;
    const newline = now.indexOf('\n', start);
    if (newline >= 0 && newline < prefix) {
      j = i;
      break;
    }
  }
  const from = j < 0 ? 0 : starts[j]!;
  const out: Section[] = sections.slice(0, Math.max(j, 0));
  // The first section after j starting in the common suffix, by its offset in `before` (the walk
  // asks only at its own line starts).
  const shift = before.length - now.length;
  const suffixStart = now.length - suffix;
  let k = j + 1;
  while (k < sections.length && (sections[k]!.heading === null || starts[k]! < suffixStart)) k++;
  let taken = -1;
  const stopped = walkSections(before, from, j < 0 ? 0 : sections[j]!.lineStart - 1, out, null, (at) => {
    // Sections past k (moved on while the walk was in a fence) are the candidates in turn.
    while (k < sections.length && (sections[k]!.heading === null || starts[k]! + shift < at)) k++;
    if (k < sections.length && starts[k]! + shift === at) {
      taken = k;
      return true;
    }
    return false;
  });
  if (taken < 0) return out;
  const lines = stopped.line - sections[taken]!.lineStart;
  for (let i = taken; i < sections.length; i++) {
    const section = sections[i]!;
    out.push(lines === 0 ? section : { heading: section.heading, content: section.content, lineStart: section.lineStart + lines, lineEnd: section.lineEnd + lines });
  }
  return out;
}

/** Blocks compared at a time when looking for where two texts part (native comparisons of slices). */
const COMPARE_BLOCK = 256;

/** The length of the longest common prefix of `a` and `b`. */
function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let at = 0;
  while (at + COMPARE_BLOCK <= max && a.slice(at, at + COMPARE_BLOCK) === b.slice(at, at + COMPARE_BLOCK)) at += COMPARE_BLOCK;
  while (at < max && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}

/** The length of the longest common suffix of `a` and `b`, at most `max`. */
function commonSuffix(a: string, b: string, max: number): number {
  let n = 0;
  while (n + COMPARE_BLOCK <= max && a.slice(a.length - n - COMPARE_BLOCK, a.length - n) === b.slice(b.length - n - COMPARE_BLOCK, b.length - n)) n += COMPARE_BLOCK;
  while (n < max && a.charCodeAt(a.length - n - 1) === b.charCodeAt(b.length - n - 1)) n++;
  return n;
}

class OpenSection {
  private lines = 0;
  private end: number;
  /** Where the last line ends in the text, a cut `\r` included. */
  private rawEnd: number;
  /** Whether a `\r` was cut from one of its lines (its content is then not one slice of the text). */
  private cut = false;
  /** Headed: a line after the heading is not blank. Preamble: a line is neither blank nor a `#` line. */
  private hasBody = false;

  constructor(readonly heading: string | null, readonly lineStart: number, private readonly start: number) {
    this.end = start;
    this.rawEnd = start;
  }

  add(text: string, start: number, end: number, cut: boolean): void {
    if (!this.hasBody && !isBlank(text, start, end)) {
      this.hasBody = this.heading === null ? text.charCodeAt(start) !== 0x23 /* # */ : this.lines > 0;
    }
    this.lines++;
    this.end = end;
    this.rawEnd = cut ? end + 1 : end;
    this.cut ||= cut;
  }

  pushIfKept(out: Section[], text: string, starts: number[] | null = null): void {
    if (this.lines === 0 || !this.hasBody) return;
    starts?.push(this.start);
    out.push({
      heading: this.heading,
      content: this.cut ? withoutCarriageReturns(text.slice(this.start, this.rawEnd)) : text.slice(this.start, this.end),
      lineStart: this.lineStart,
      lineEnd: this.lineStart + this.lines - 1,
    });
  }
}

/** Lines joined with `\n` as `str::lines()` gives them: one `\r` cut from the end of each. */
function withoutCarriageReturns(lines: string): string {
  return lines.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)).join('\n');
}

/** `rustTrim(text.slice(start, end)) === ''` without the copy (Rust whitespace is all in the BMP). */
function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isRustWhitespace(text.charCodeAt(i))) return false;
  return true;
}

/**
 * The single chunk of a one-record-per-file handler: the whole text verbatim
 * (trailing newline kept), lines 1..max(1, line count); null for an empty or blank file.
 */
export function wholeFileSection(text: string): Section | null {
  if (rustTrim(text) === '') return null;
  return { heading: null, content: text, lineStart: 1, lineEnd: Math.max(1, rustLines(text).length) };
}
