import { deflateAhead } from '@/lib/core/archive/deflate-ahead';
import { asUint8Array } from '@/lib/core/bytes';
import { readOrMintAgentId } from '../shared/agent-id';
import { stagingWarnings } from '../shared/restore-staging';
import { NO_FILE_KEYS, type ExportOptions, type ExportResult, type FileKeys, type KnownFileKeys, type KnownKeys, type RecordSlot, type SlotExport, type StatEntry, type UnchangedFiles } from '../types';
import { UTF8, YIELD_EVERY_FILES, agentName, isRecordBearing, isV41Layout, keyedFileOf, keyedFromKeys, layersOf, rawFileSet, readProse } from './export-parts';
import { sortByInstant } from './records';
import { absPath, formatNanos, isDir, readWithMtime, statFile } from './workspace-files';

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
  const { files, excluded, staging, linkWarnings } = await rawFileSet(opts.workspace);
  const raw = new Map<string, Uint8Array>();
  const mtimes = new Map<string, string>();
  const v41Layout = await isV41Layout(opts.workspace);
  const fileKeys = knownFileKeys ? await knownFileKeys(agentId) : NO_FILE_KEYS;
  const statContext = v41Layout ? 'v41' : 'flat';
  const unchanged = opts.unchanged ? await opts.unchanged(agentId, statContext) : null;
  const fileStats = new Map<string, StatEntry>();
  const carried: string[] = [];
  const perFile: ({ rel: string } & ReturnType<typeof keyedFileOf>)[] = [];
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
      perFile.push({ rel, ...same.file });
      continue;
    }
    const { bytes, mtime, stat } = readWithMtime(abs);
    raw.set(rel, asUint8Array(bytes));
    // A file read is most likely a changed one, whose bytes the upload deflates: that starts now,
    // in a worker, while this thread chunks and reconciles (deflate-ahead.ts).
    deflateAhead(raw.get(rel)!);
    mtimes.set(rel, mtime);
    const file = keyedFileOf({ agentId, rel, bytes: raw.get(rel)!, mtime, v41Layout, fileKeys });
    perFile.push({ rel, ...file });
    // A record-bearing file without a digest (not UTF-8) is read every time, as its warning says.
    if (file.digest !== undefined || !isRecordBearing(rel)) fileStats.set(rel, { ...stat, digest: file.digest ?? null });
  }
  if (unchanged && carried.length === files.length && unchanged.count === files.length) {
    // Nothing changed, came or went: the last export's result, which the caller holds already.
    return { runtime: 'openclaw', agentId, agentName: '', slots: [], raw: new Map(), layers: {}, excludedByAlfignore: excluded, warnings: [...stagingWarnings(opts.workspace, staging), ...linkWarnings], allUnchanged: true };
  }
  if (carried.length > 0) for (const [rel, bytes] of await unchanged!.bytes(carried)) raw.set(rel, bytes);
  // Every key is known by now: the caller's answer for them may have been loading meanwhile.
  const known = await knownKeys(agentId);
  const warnings: string[] = [...stagingWarnings(opts.workspace, staging), ...linkWarnings, ...perFile.flatMap((file) => (file.warning === undefined ? [] : [file.warning]))];
  // Records sort stably by created_at, and a file's records share theirs: sorting the files (stably)
  // and keeping each file's order is the same order.
  const slots: RecordSlot[] = [];
  const slotFiles: { rel: string; count: number }[] = [];
  for (const { rel, keyed } of sortByInstant(perFile.filter((f) => f.keyed !== null), (f) => f.keyed!.createdAt)) {
    const before = slots.length;
    for (const slot of keyed!.slots(known)) slots.push(slot);
    slotFiles.push({ rel, count: slots.length - before });
  }
  const prose = readProse(raw, mtimes);
  const nextFileKeys = new Map<string, readonly string[]>();
  for (const { keyed, digest } of perFile) if (keyed && digest) nextFileKeys.set(digest, keyed.keys);
  return {
    runtime: 'openclaw',
    agentId,
    agentName: agentName(opts.workspace, prose['IDENTITY.md']?.text),
    slots,
    slotFiles,
    fileKeys: nextFileKeys,
    fileStats,
    statContext,
    raw,
    layers: layersOf(agentId, prose),
    excludedByAlfignore: excluded,
    warnings,
  };
}

/** A placeholder of `raw` for a file not opened, until its bytes come from the base. */
const NOT_YET_READ = new Uint8Array(0);

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
  const textAgain = () => UTF8.decode(args.raw.get(args.rel)!);
  return { entry, mtime, file: { keyed: keyedFromKeys({ agentId: args.agentId, rel: args.rel, mtime, v41Layout: args.v41Layout, keys, textAgain }), digest: entry.digest! } };
}
