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
  let current = new OpenSection(null, 1, 0);
  let inFence = false;
  let line = 0;
  for (let at = 0; at < text.length; line++) {
    const newline = text.indexOf('\n', at);
    const next = newline < 0 ? text.length : newline + 1;
    let end = newline < 0 ? text.length : newline;
    const cut = end > at && text.charCodeAt(end - 1) === 0x0d;
    if (cut) end--;
    // A prefix cannot match across the line's end: `\r` and `\n` are in neither prefix.
    if (text.startsWith(FENCE_PREFIX, at)) inFence = !inFence;
    else if (!inFence && text.startsWith(HEADING_PREFIX, at)) {
      current.pushIfKept(sections, text);
      current = new OpenSection(rustTrim(text.slice(at + HEADING_PREFIX.length, end)), line + 1, at);
    }
    current.add(text, at, end, cut);
    at = next;
  }
  current.pushIfKept(sections, text);
  return sections;
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

  pushIfKept(out: Section[], text: string): void {
    if (this.lines === 0 || !this.hasBody) return;
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
