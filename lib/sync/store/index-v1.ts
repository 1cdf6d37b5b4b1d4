/**
 * Reading the store index's first format, `lineage-state 1` (text, one line per file), which the
 * clients before `lineage-state 2` wrote: a workspace they synced goes on syncing from it, and the
 * next sync that uploads writes the index anew in the current format. Never written any more.
 *
 * Per file: `<ino> <size> <mtime ns> <ctime ns> <digest or -> <kind> <raw off> <raw len> <table off> <table len> <lines bytes> <path as JSON>`.
 */
import { StoreDamaged } from './errors';
import { checkRefs, parseHeader, parseMeta, type FileKind, type IndexFile, type StoreIndex } from './index-common';
import { parseJsonString } from './json-string';

const LINE = /^(\d+) (\d+) (-?\d+) (-?\d+) ([0-9a-f]{64}|-) ([sunr]) (\d{1,15}) (\d{1,15}) (\d{1,15}) (\d{1,15}) (\d{1,15}) ("(?:[^"\\]|\\.)*")$/;

/** A `lineage-state 1` index; StoreDamaged unless it is exactly as written and its refs fit its log. */
export function parseIndexV1(bytes: Buffer): StoreIndex {
  const lines = bytes.toString('utf8').split('\n');
  if (lines.pop() !== '') throw new StoreDamaged('store index: torn');
  const { count, ...head } = parseHeader(lines.shift() ?? '', 1);
  if (count !== lines.length - 1) throw new StoreDamaged('store index: unreadable header');
  const meta = parseMeta(lines.shift());
  const files: IndexFile[] = [];
  const seen = new Set<string>();
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) throw new StoreDamaged('store index: unreadable file line');
    const rel = parseJsonString(m[12]!);
    if (rel === undefined || seen.has(rel)) throw new StoreDamaged('store index: bad or repeated path');
    seen.add(rel);
    const kind = m[6] as FileKind;
    const file: IndexFile = {
      rel, kind, raw: { off: Number(m[7]), len: Number(m[8]) },
      table: kind === 's' || kind === 'u' ? { off: Number(m[9]), len: Number(m[10]) } : null,
      linesBytes: Number(m[11]),
      stat: { ino: BigInt(m[1]!), size: BigInt(m[2]!), mtimeNs: BigInt(m[3]!), ctimeNs: BigInt(m[4]!) },
      digest: m[5] === '-' ? null : m[5]!,
    };
    checkRefs(file, head.logLength);
    files.push(file);
  }
  return { ...head, meta, files };
}
