/**
 * Workspace files of a record-only delta: the reference CLI (before 0.1.10) sends record operations
 * with no raw channel, so an OpenClaw file whose sections changed arrives without its bytes. Such a
 * file is rendered from the records it holds after the delta (the cross-runtime rendering of
 * CONTRACT §6 step 5); a file the delta carries raw, changed or deleted, is never rendered — raw
 * bytes stay byte-exact. Pure: the restore fold (lib/core/restore.ts) and the history index
 * (lib/history/record-files-index.ts) both decide and render through `recordOnlyFiles`, so the
 * workspace the index serves, its downloads and a restore agree byte for byte.
 */
import { rustTrimEnd } from '@/lib/core/rust-str';
import type { MemoryRecord } from '@/lib/core/record';
import { targetFile } from './reconstruct';

const RAW_PREFIX = 'raw/openclaw/';
const encoder = new TextEncoder();

/** One record operation of a delta: the record before (null for a create) and after (null for a delete). */
export interface TouchedRecord {
  before: MemoryRecord | null;
  after: MemoryRecord | null;
}

/** Rendered files, by workspace-relative path; `deleted`: files whose last record went. */
export interface RenderedFiles {
  changed: Map<string, Uint8Array>;
  deleted: string[];
}

const isOpenclaw = (record: MemoryRecord | null): record is MemoryRecord => record?.source?.runtime === 'openclaw';

/**
 * The workspace files a delta changed only through its records: those whose sections were created,
 * deleted, edited or moved, that the delta carries no raw entry for (`carried`: workspace paths of
 * its raw changed and deleted files). A metadata-only update leaves its file's bytes as they were.
 */
export function filesTouchedByRecords(touched: readonly TouchedRecord[], carried: ReadonlySet<string>): string[] {
  const files = new Set<string>();
  for (const { before, after } of touched) {
    const from = isOpenclaw(before) ? targetFile(before) : null;
    const to = isOpenclaw(after) ? targetFile(after) : null;
    if (from === null && to === null) continue;
    if (before && after && from === to && before.content === after.content) continue;
    if (from !== null) files.add(from);
    if (to !== null) files.add(to);
  }
  return [...files].filter((file) => !carried.has(file)).sort();
}

/**
 * Renders `files` from `live` (the agent's records after the delta): each file's OpenClaw records,
 * in source order (`line_start`, then id: an order of the set, not of any list, so every caller
 * renders the same bytes), trailing whitespace trimmed, joined by blank lines. A file with no
 * record left is deleted when `exists` says it is in the workspace.
 */
export function renderFiles(files: readonly string[], live: readonly MemoryRecord[], exists: (path: string) => boolean): RenderedFiles {
  const wanted = new Set(files);
  const byFile = new Map<string, MemoryRecord[]>();
  for (const record of live) {
    if (!isOpenclaw(record)) continue;
    const file = targetFile(record);
    if (!wanted.has(file)) continue;
    const list = byFile.get(file) ?? [];
    list.push(record);
    byFile.set(file, list);
  }
  const changed = new Map<string, Uint8Array>();
  const deleted: string[] = [];
  for (const file of files) {
    const records = (byFile.get(file) ?? []).sort((a, b) => lineStart(a) - lineStart(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const body = records.map((r) => rustTrimEnd(r.content)).filter((c) => c.length > 0);
    if (body.length > 0) changed.set(file, encoder.encode(`${body.join('\n\n')}\n`));
    else if (exists(file)) deleted.push(file);
  }
  return { changed, deleted };
}

/** `raw/openclaw/<path>` → `<path>`, null for any other runtime's or a non-raw entry. */
export function openclawPath(archivePath: string): string | null {
  return archivePath.startsWith(RAW_PREFIX) ? archivePath.slice(RAW_PREFIX.length) : null;
}

/** `<path>` → `raw/openclaw/<path>`. */
export function openclawArchivePath(path: string): string {
  return `${RAW_PREFIX}${path}`;
}

function lineStart(record: MemoryRecord): number {
  const value = record.raw_source_format?.line_start;
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.MAX_SAFE_INTEGER;
}
