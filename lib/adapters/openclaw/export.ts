import type { JsonObject } from '@/lib/core/json';
import { deflateAhead } from '@/lib/core/archive/deflate-ahead';
import { asUint8Array } from '@/lib/core/bytes';
import { readOrMintAgentId } from '../shared/agent-id';
import { loadAlfIgnore } from '../shared/alfignore';
import { INCLUDE_FILE, SYNC_LOG_FILE, isNeverRaw } from '../shared/sync-marker';
import { isFileInside, walkFiles } from '../shared/walk';
import { NO_FILE_KEYS, type ExportOptions, type ExportResult, type FileKeys, type KnownFileKeys, type KnownKeys, type RecordSlot, type SlotExport, type StatEntry, type UnchangedFiles } from '../types';
import { V41_MARKER_DIRS, handlerFor, tierFor } from './handlers';
import { agentName, identityLayer, principalsLayer, type ProseFiles } from './layers';
import { fileDigest, keyedFile, keyedFileFromKeys, sortByInstant, type KeyedFile } from './records';
import { MEMORY_DIR, ROOT_FILES, absPath, formatNanos, isDir, newest, readWithMtime, statFile } from './workspace-files';

/** Thrown when the workspace cannot be exported (nothing is written). */
export class OpenclawExportError extends Error {
  readonly code = 'workspace_missing';

  constructor(message: string) {
    super(message);
    this.name = 'OpenclawExportError';
  }
}

/**
 * Exports an OpenClaw workspace: records from `MEMORY.md` and `memory/**\/*.md` by the
 * handler table (plus the v4.1 tiers), raw files per CONTRACT §3.3 filtered by
 * `.alfignore` (which also keeps ignored files out of the records), identity and
 * principal layers from the root prose files.
 */
export async function exportOpenclaw(opts: ExportOptions): Promise<ExportResult> {
  const { slots, ...rest } = await exportOpenclawSlots(opts, async () => () => false);
  return { ...rest, records: slots.map((slot) => slot.record!) };
}

/** The export with its records as slots (Adapter.exportSlots). */
export async function exportOpenclawSlots(opts: ExportOptions, knownKeys: KnownKeys, knownFileKeys?: KnownFileKeys): Promise<SlotExport> {
  if (!(await isDir(opts.workspace))) throw new OpenclawExportError(`workspace not found or not a directory: ${opts.workspace}`);
  const agentId = await readOrMintAgentId({ workspace: opts.workspace, runtime: 'openclaw', persist: opts.persistAgentId });
  opts.onAgentId?.(agentId);
  const { files, excluded } = await rawFileSet(opts.workspace);
  const raw = new Map<string, Uint8Array>();
  const mtimes = new Map<string, string>();
  const v41Layout = await isV41Layout(opts.workspace);
  const fileKeys = knownFileKeys ? await knownFileKeys(agentId) : NO_FILE_KEYS;
  const statContext = v41Layout ? 'v41' : 'flat';
  const unchanged = opts.unchanged ? await opts.unchanged(agentId, statContext) : null;
  const fileStats = new Map<string, StatEntry>();
  const carried: string[] = [];
  const perFile: ReturnType<typeof keyedFileOf>[] = [];
  for (let i = 0; i < files.length; i++) {
    // Files are read and chunked synchronously (a large store has hundreds of them), with a turn
    // of the event loop now and then: what the caller started meanwhile (a sync reads and inflates
    // its base on the thread pool, a chain of I/O steps each continued from this thread) goes on.
    if (i > 0 && i % YIELD_EVERY_FILES === 0) await new Promise((resolve) => setImmediate(resolve));
    const rel = files[i]!;
    const abs = absPath(opts.workspace, rel);
    const same = unchanged ? unchangedFile({ unchanged, agentId, rel, abs, v41Layout, fileKeys, raw }) : null;
    if (same) {
      // Not opened: its bytes are the base's (filled in below, in this place of `raw`).
      raw.set(rel, NOT_YET_READ);
      mtimes.set(rel, same.mtime);
      carried.push(rel);
      fileStats.set(rel, same.entry);
      perFile.push(same.file);
      continue;
    }
    const { bytes, mtime, stat } = readWithMtime(abs);
    raw.set(rel, asUint8Array(bytes));
    // A file read is most likely a changed one, whose bytes the upload deflates: that starts now,
    // in a worker, while this thread chunks and reconciles (deflate-ahead.ts).
    deflateAhead(raw.get(rel)!);
    mtimes.set(rel, mtime);
    const file = keyedFileOf({ agentId, rel, bytes: raw.get(rel)!, mtime, v41Layout, fileKeys });
    perFile.push(file);
    // A record-bearing file without a digest (not UTF-8) is read every time, as its warning says.
    if (file.digest !== undefined || !isRecordBearing(rel)) fileStats.set(rel, { ...stat, digest: file.digest ?? null });
  }
  if (unchanged && carried.length === files.length && unchanged.count === files.length) {
    // Nothing changed, came or went: the last export's result, which the caller holds already.
    return { runtime: 'openclaw', agentId, agentName: '', slots: [], raw: new Map(), layers: {}, excludedByAlfignore: excluded, warnings: [], allUnchanged: true };
  }
  if (carried.length > 0) for (const [rel, bytes] of await unchanged!.bytes(carried)) raw.set(rel, bytes);
  // Every key is known by now: the caller's answer for them may have been loading meanwhile.
  const known = await knownKeys(agentId);
  const warnings: string[] = perFile.flatMap((file) => (file.warning === undefined ? [] : [file.warning]));
  // Records sort stably by created_at, and a file's records share theirs: sorting the files (stably)
  // and keeping each file's order is the same order.
  const slots: RecordSlot[] = [];
  for (const { keyed } of sortByInstant(perFile.filter((f) => f.keyed !== null), (f) => f.keyed!.createdAt)) {
    for (const slot of keyed!.slots(known)) slots.push(slot);
  }
  const prose = readProse(raw, mtimes);
  const nextFileKeys = new Map<string, readonly string[]>();
  for (const { keyed, digest } of perFile) if (keyed && digest) nextFileKeys.set(digest, keyed.keys);
  return {
    runtime: 'openclaw',
    agentId,
    agentName: agentName(opts.workspace, prose['IDENTITY.md']?.text),
    slots,
    fileKeys: nextFileKeys,
    fileStats,
    statContext,
    raw,
    layers: layersOf(agentId, prose),
    excludedByAlfignore: excluded,
    warnings,
  };
}

/** Root files + everything under `memory/` + include list and sync log, minus `.alfignore` and never-raw files. */
async function rawFileSet(workspace: string): Promise<{ files: string[]; excluded: number }> {
  const ignored = await loadAlfIgnore(workspace);
  const candidates: string[] = [];
  for (const rel of [...ROOT_FILES, INCLUDE_FILE, SYNC_LOG_FILE]) {
    if (await isFileInside(workspace, rel)) candidates.push(rel);
  }
  candidates.push(...(await walkFiles(workspace, MEMORY_DIR)));
  const files: string[] = [];
  let excluded = 0;
  for (const rel of candidates) {
    if (isNeverRaw(rel)) continue;
    if (ignored(rel)) excluded++;
    else files.push(rel);
  }
  return { files, excluded };
}

async function isV41Layout(workspace: string): Promise<boolean> {
  for (const dir of V41_MARKER_DIRS) if (await isDir(absPath(workspace, dir))) return true;
  return false;
}

/** Files read and chunked between two turns of the event loop (a few milliseconds of work). */
const YIELD_EVERY_FILES = 16;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A record-bearing file, keyed: from the keys remembered for its digest when there are (nothing is
 * decoded or chunked), else chunked. Files that are not valid UTF-8 have no records (and no keys
 * are remembered for them, so their digest is never found).
 */
/** A placeholder of `raw` for a file not opened, until its bytes come from the base. */
const NOT_YET_READ = new Uint8Array(0);

const isRecordBearing = (rel: string) => (rel === 'MEMORY.md' || (rel.startsWith(`${MEMORY_DIR}/`) && rel.endsWith('.md'))) && handlerFor(rel) !== null;

/**
 * A file the stat cache finds unchanged, keyed from its digest's keys without being opened (its
 * text is decoded from `raw`, once its bytes are there, only if a record of it is built). Null when
 * it must be read: changed, racy, or a record-bearing file whose keys are not remembered.
 */
function unchangedFile(args: {
  unchanged: UnchangedFiles; agentId: string; rel: string; abs: string; v41Layout: boolean; fileKeys: FileKeys; raw: Map<string, Uint8Array>;
}): { entry: StatEntry; mtime: string; file: ReturnType<typeof keyedFileOf> } | null {
  const stat = statFile(args.abs);
  const entry = stat && args.unchanged.lookup(args.rel, stat);
  if (!stat || !entry) return null;
  const mtime = formatNanos(stat.mtimeNs);
  if (!isRecordBearing(args.rel)) return entry.digest === null ? { entry, mtime, file: { keyed: null } } : null;
  const keys = entry.digest === null ? undefined : args.fileKeys.get(entry.digest);
  if (!keys) return null;
  const handler = handlerFor(args.rel)!;
  const tier = tierFor(args.rel, args.v41Layout);
  const textAgain = () => UTF8.decode(args.raw.get(args.rel)!);
  return { entry, mtime, file: { keyed: keyedFileFromKeys(args.agentId, { relPath: args.rel, mtime, handler, tier }, keys, textAgain), digest: entry.digest! } };
}

function keyedFileOf(args: {
  agentId: string;
  rel: string;
  bytes: Uint8Array;
  mtime: string;
  v41Layout: boolean;
  fileKeys: FileKeys;
}): { keyed: KeyedFile | null; digest?: string; warning?: string } {
  const isMarkdown = args.rel === 'MEMORY.md' || (args.rel.startsWith(`${MEMORY_DIR}/`) && args.rel.endsWith('.md'));
  const handler = isMarkdown ? handlerFor(args.rel) : null;
  if (!handler) return { keyed: null };
  const tier = tierFor(args.rel, args.v41Layout);
  const digest = fileDigest(args.agentId, args.rel, tier, args.bytes);
  const textAgain = () => UTF8.decode(args.bytes);
  const known = args.fileKeys.get(digest);
  if (known) return { keyed: keyedFileFromKeys(args.agentId, { relPath: args.rel, mtime: args.mtime, handler, tier }, known, textAgain), digest };
  let text: string;
  try {
    text = UTF8.decode(args.bytes);
  } catch {
    return { keyed: null, warning: `${args.rel}: not valid UTF-8, kept as a raw file only` };
  }
  return { keyed: keyedFile(args.agentId, { relPath: args.rel, text, mtime: args.mtime, handler, tier }, textAgain), digest };
}

function readProse(raw: Map<string, Uint8Array>, mtimes: Map<string, string>): ProseFiles {
  const prose: ProseFiles = {};
  for (const rel of ROOT_FILES) {
    const bytes = raw.get(rel);
    if (!bytes || rel === 'MEMORY.md') continue;
    prose[rel] = { text: Buffer.from(bytes).toString('utf8'), mtime: mtimes.get(rel)! };
  }
  return prose;
}

function layersOf(agentId: string, prose: ProseFiles): ExportResult['layers'] {
  const layers: Partial<Record<'identity' | 'principals', JsonObject>> = {};
  const identitySources = ['SOUL.md', 'IDENTITY.md', 'AGENTS.md', 'TOOLS.md', 'HEARTBEAT.md', 'BOOTSTRAP.md'];
  const updatedAt = newest(identitySources.flatMap((f) => (prose[f] ? [prose[f]!.mtime] : [])));
  const identity = identityLayer(agentId, prose, updatedAt);
  if (identity) layers.identity = identity;
  const principals = principalsLayer(agentId, prose);
  if (principals) layers.principals = principals;
  return layers;
}
