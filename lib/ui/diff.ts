/**
 * Word-level diff between two versions of a memory (pure; no React). diff-match-patch works on
 * characters, so tokens are first mapped to single characters (the library's line-mode trick applied
 * to words), diffed and cleaned up semantically in that form, then mapped back: an edit always
 * replaces whole tokens and reads as whole phrases.
 */
import { clockFreeDiff, type ClockFreeDiff } from './diff-clock';

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

/**
 * Tokens that are replaced whole: a word is a run of letters, digits and `_`, joined across single
 * inner separators (`.` `-` `:` `/` `@` `'`), so `10.20.0.5`, `2026-11-09`, `memory/notes.md` and
 * `don't` are one token each, while a sentence's trailing `.` or `,` stays its own token. Whitespace
 * runs and any other character are tokens too, so joining the tokens gives the text back.
 */
const TOKEN = /\s+|[\p{L}\p{N}_]+(?:['\u2019.:/@-][\p{L}\p{N}_]+)*|[^\s\p{L}\p{N}_]/gu;

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
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
  const differ = clockFreeDiff();
  const table = new Map<string, string>();
  const tokens: string[] = [];
  const a = encode(before, table, tokens);
  const b = encode(after, table, tokens);
  if (tokens.length >= 0xf000) return wholeLineDiff(differ, before, after);
  const diffs = differ.diffMain(a, b);
  // Cleaned up while each character still stands for a whole token, so no edit boundary can move
  // inside a token (cleaning the decoded text would re-split `10.20.0.5 → 10.20.0.9` down to `5 → 9`).
  differ.dmp.diff_cleanupSemantic(diffs);
  return absorbShortEqualities(merge(diffs.map(([op, text]) => ({ op: OPS[op] ?? 'equal', text: decode(text, tokens) }))));
}

/**
 * diff-match-patch's semantic rule — an unchanged stretch no longer than the edits on both of its
 * sides becomes part of them ("tabs over spaces" → "spaces over tabs" reads as one phrase replaced) —
 * applied with lengths in characters, as the token-space cleanup counts tokens. It only merges whole
 * segments, so edits still start and end at token boundaries.
 */
function absorbShortEqualities(segments: DiffSegment[]): DiffSegment[] {
  let current = segments;
  for (;;) {
    const runs: { equal: string | null; deleted: string; inserted: string }[] = [];
    for (const s of current) {
      if (s.op === 'equal') runs.push({ equal: s.text, deleted: '', inserted: '' });
      else {
        if (runs.length === 0 || runs[runs.length - 1]!.equal !== null) runs.push({ equal: null, deleted: '', inserted: '' });
        const run = runs[runs.length - 1]!;
        if (s.op === 'delete') run.deleted += s.text;
        else run.inserted += s.text;
      }
    }
    const editSize = (i: number) => {
      const r = runs[i];
      return r && r.equal === null ? Math.max(r.deleted.length, r.inserted.length) : 0;
    };
    const at = runs.findIndex((r, i) => r.equal !== null && i > 0 && i < runs.length - 1 && r.equal.length <= editSize(i - 1) && r.equal.length <= editSize(i + 1));
    if (at < 0) return current;
    const [before, equal, after] = [runs[at - 1]!, runs[at]!.equal!, runs[at + 1]!];
    const joined = { equal: null, deleted: before.deleted + equal + after.deleted, inserted: before.inserted + equal + after.inserted };
    runs.splice(at - 1, 3, joined);
    current = runs.flatMap((r): DiffSegment[] =>
      r.equal !== null ? [{ op: 'equal', text: r.equal }] : [
        ...(r.deleted ? [{ op: 'delete' as const, text: r.deleted }] : []),
        ...(r.inserted ? [{ op: 'insert' as const, text: r.inserted }] : []),
      ]);
  }
}

/** Beyond 61,440 distinct tokens the one-character code runs out: whole lines, still never split. */
function wholeLineDiff({ dmp, diffMain }: ClockFreeDiff, before: string, after: string): DiffSegment[] {
  const { chars1, chars2, lineArray } = dmp.diff_linesToChars_(before, after);
  const diffs = diffMain(chars1, chars2);
  dmp.diff_cleanupSemantic(diffs);
  dmp.diff_charsToLines_(diffs, lineArray);
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
  const { dmp, diffMain } = clockFreeDiff();
  const { chars1, chars2, lineArray } = dmp.diff_linesToChars_(before, after);
  const diffs = diffMain(chars1, chars2);
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
