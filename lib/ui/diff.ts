/**
 * Word-level diff between two versions of a memory (pure; no React). diff-match-patch works on
 * characters, so words are first mapped to single characters (the library's line-mode trick applied
 * to words), diffed, mapped back, then cleaned up semantically so edits read as whole phrases.
 */
import DiffMatchPatch from 'diff-match-patch';

export type DiffOp = 'equal' | 'insert' | 'delete';

/** One run of text in a diff. */
export interface DiffSegment {
  op: DiffOp;
  text: string;
}

export interface DiffStats {
  inserted: number;
  deleted: number;
}

const OPS: Record<number, DiffOp> = { [-1]: 'delete', 0: 'equal', 1: 'insert' };

/** Words and the whitespace/punctuation between them, so that joining the tokens gives the text back. */
function tokenize(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}_'’-]+|[^\s\p{L}\p{N}_'’-]/gu) ?? [];
}

function encode(text: string, table: Map<string, string>, tokens: string[]): string {
  let out = '';
  for (const token of tokenize(text)) {
    let code = table.get(token);
    if (code === undefined) {
      // Skip the surrogate range so every token maps to one UTF-16 unit.
      const index = tokens.length < 0xd800 ? tokens.length : tokens.length + 0x800;
      code = String.fromCharCode(index);
      table.set(token, code);
      tokens.push(token);
    }
    out += code;
  }
  return out;
}

function decode(encoded: string, tokens: string[]): string {
  let out = '';
  for (const ch of encoded) {
    const code = ch.charCodeAt(0);
    out += tokens[code < 0xd800 ? code : code - 0x800] ?? '';
  }
  return out;
}

/** The word diff of `before` → `after`. An empty `before` is all insertion (a record's birth). */
export function wordDiff(before: string, after: string): DiffSegment[] {
  const dmp = new DiffMatchPatch();
  const table = new Map<string, string>();
  const tokens: string[] = [];
  const a = encode(before, table, tokens);
  const b = encode(after, table, tokens);
  if (tokens.length >= 0xf000) return charDiff(dmp, before, after);
  const diffs = dmp.diff_main(a, b, false);
  for (const d of diffs) d[1] = decode(d[1], tokens);
  dmp.diff_cleanupSemantic(diffs);
  return merge(diffs.map(([op, text]) => ({ op: OPS[op] ?? 'equal', text })));
}

function charDiff(dmp: DiffMatchPatch, before: string, after: string): DiffSegment[] {
  const diffs = dmp.diff_main(before, after);
  dmp.diff_cleanupSemantic(diffs);
  return merge(diffs.map(([op, text]) => ({ op: OPS[op] ?? 'equal', text })));
}

function merge(segments: DiffSegment[]): DiffSegment[] {
  const out: DiffSegment[] = [];
  for (const s of segments) {
    if (s.text.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.op === s.op) last.text += s.text;
    else out.push({ ...s });
  }
  return out;
}

/** Count of inserted and deleted words, for "+12 −3" badges. */
export function diffStats(segments: DiffSegment[]): DiffStats {
  const words = (text: string) => (text.match(/[\p{L}\p{N}]+/gu) ?? []).length;
  let inserted = 0;
  let deleted = 0;
  for (const s of segments) {
    if (s.op === 'insert') inserted += words(s.text);
    else if (s.op === 'delete') deleted += words(s.text);
  }
  return { inserted, deleted };
}

/** One line of a unified line diff, with its line numbers on each side. */
export interface DiffLine {
  op: DiffOp;
  text: string;
  oldNo: number | null;
  newNo: number | null;
}

/** Line-level diff (for comparing whole workspace files), via diff-match-patch's line mode. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const dmp = new DiffMatchPatch();
  const { chars1, chars2, lineArray } = dmp.diff_linesToChars_(before, after);
  const diffs = dmp.diff_main(chars1, chars2, false);
  dmp.diff_charsToLines_(diffs, lineArray);
  const out: DiffLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  for (const [code, text] of diffs) {
    const op = OPS[code] ?? 'equal';
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    for (const line of lines) {
      out.push({ op, text: line, oldNo: op === 'insert' ? null : oldNo, newNo: op === 'delete' ? null : newNo });
      if (op !== 'insert') oldNo += 1;
      if (op !== 'delete') newNo += 1;
    }
  }
  return out;
}
