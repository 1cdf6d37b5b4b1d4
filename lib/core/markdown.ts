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

interface OpenSection {
  heading: string | null;
  lines: string[];
  lineStart: number;
}

/**
 * Split-by-heading exactly as the reference: Rust `str::lines()` (so `\r\n` and a final
 * newline behave as in Rust), a line starting with `## ` at column 0 outside a code
 * fence opens a section, lines starting with ```` ``` ```` toggle the fence, and text
 * before the first heading is the preamble. Content is the section's lines joined with
 * `\n`, heading line included. Headed sections with nothing but blank lines after the
 * heading, and preambles holding only blank lines and `#` title lines, are dropped
 * (their line numbers still count, so later sections keep file positions).
 */
export function splitSections(text: string): Section[] {
  const sections: Section[] = [];
  let current: OpenSection = { heading: null, lines: [], lineStart: 1 };
  let inFence = false;
  rustLines(text).forEach((line, index) => {
    if (line.startsWith(FENCE_PREFIX)) inFence = !inFence;
    else if (!inFence && line.startsWith(HEADING_PREFIX)) {
      pushIfKept(sections, current);
      current = { heading: rustTrim(line.slice(HEADING_PREFIX.length)), lines: [], lineStart: index + 1 };
    }
    current.lines.push(line);
  });
  pushIfKept(sections, current);
  return sections;
}

function pushIfKept(out: Section[], section: OpenSection): void {
  if (section.lines.length === 0) return;
  const keep = section.heading === null ? preambleHasBody(section.lines) : headedHasBody(section.lines);
  if (!keep) return;
  out.push({
    heading: section.heading,
    content: section.lines.join('\n'),
    lineStart: section.lineStart,
    lineEnd: section.lineStart + section.lines.length - 1,
  });
}

/** `rustTrim(line) === ''` without the trimmed copy (Rust whitespace is all in the BMP). */
function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) if (!isRustWhitespace(line.charCodeAt(i))) return false;
  return true;
}

function headedHasBody(lines: string[]): boolean {
  for (let i = 1; i < lines.length; i++) if (!isBlank(lines[i]!)) return true;
  return false;
}

/** Skips leading blank and `#` lines (a `# 2026-01-15` title is not a memory) and looks for text after. */
function preambleHasBody(lines: string[]): boolean {
  let i = 0;
  while (i < lines.length && (isBlank(lines[i]!) || lines[i]!.startsWith('#'))) i++;
  return lines.slice(i).some((line) => !isBlank(line));
}

/**
 * The single chunk of a one-record-per-file handler: the whole text verbatim
 * (trailing newline kept), lines 1..max(1, line count); null for an empty or blank file.
 */
export function wholeFileSection(text: string): Section | null {
  if (rustTrim(text) === '') return null;
  return { heading: null, content: text, lineStart: 1, lineEnd: Math.max(1, rustLines(text).length) };
}
