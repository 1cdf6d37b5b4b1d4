/**
 * The OpenClaw export of a sync whose client state is kept per file (lib/sync/store): every file
 * is stat'ed, and one whose stat data the last sync recorded (git's racy rule applied by the
 * caller) is not opened. What comes back per file is what that sync needs to decide what to
 * reconcile: the bytes of the files read, their keys, and, for every record-bearing file, the
 * created_at its records sort by. Records are not made here: which files to key and build is the
 * caller's decision (`keyed()`).
 */
import { deflateAhead } from '@/lib/core/archive/deflate-ahead';
import { asUint8Array } from '@/lib/core/bytes';
import { readOrMintAgentId } from '../shared/agent-id';
import { stagingWarnings } from '../shared/restore-staging';
import type { ExportOptions, FileStat, StatEntry } from '../types';
import { OpenclawExportError } from './export';
import { UTF8, YIELD_EVERY_FILES, agentName, isMarkdownPath, isV41Layout, keyedFileOf, keyedFromKeys, layersOf, rawFileSet, readProse } from './export-parts';
import { fileNameDay, handlerFor, tierFor, type Handler } from './handlers';
import { fileDigest, type KeyedFile } from './records';
import type { KeySource } from './section-keys';
import { absPathsIn, formatNanos, isDir, readWithMtime, statFile } from './workspace-files';

/** What the last sync recorded of the workspace's files. */
export interface PriorFiles {
  /** The file's recorded digest (null: none) when `stat` shows it unchanged and not racy; else undefined. */
  unchanged(rel: string, stat: FileStat): { digest: string | null } | undefined;
  /** The keys the last sync recorded for `rel` when its digest was `digest`. */
  keys(rel: string, digest: string): readonly string[] | undefined;
  /** The digest the last sync recorded for `rel` (null: none, undefined: no such file). */
  digest(rel: string): string | null | undefined;
  /** The bytes of `rel` as the last sync recorded them. */
  bytes(rel: string): Uint8Array;
  /**
   * A record-bearing file's bytes and keys as the last sync recorded them, when its keys were made
   * with the same agent, tier and key version as now (else undefined).
   */
  previous(rel: string): { bytes: Uint8Array; keys: KeySource } | undefined;
  /** Whether `bytes` are the ones the last sync recorded for `rel`. */
  sameBytes(rel: string, bytes: Uint8Array): boolean;
  /**
   * A changed file keyed ahead of the sync against this very state (a watch keys files as their
   * change events come: lib/sync/store/keys-ahead.ts): its keying when it was made from the bytes
   * of `digest` with this mtime (so it is the one `keyReadFile` would make now), with those bytes
   * (equal to the ones read; their Deflate was started then). Else undefined.
   */
  ahead?(rel: string, digest: string, mtime: string): { keyed: KeyedFile; bytes: Uint8Array } | undefined;
  /** How many files the last sync recorded. */
  readonly count: number;
}

export interface ExportedFile {
  rel: string;
  /** Its stat data as the next sync should find them, with its digest; null: read it every time. */
  stat: StatEntry | null;
  /** Opened (its bytes are `bytes`), or not (its bytes are the prior state's). */
  bytes: Uint8Array | null;
  /** Bears records (possibly none): then `sortMs` and `sortNs` are what they sort by and `keyed()` keys it. */
  records: boolean;
  /**
   * The instant of the created_at its records get — its mtime, or its name's date —, as ms since
   * the epoch and ns within the ms (both truncated toward zero): records sort stably by it
   * (sortByInstant's order, without making the timestamp). Numbers: a plan compares them for every
   * record-bearing file at every sync, and bigint arithmetic cost more than the rest of its work.
   */
  sortMs: number;
  sortNs: number;
  keyed(): KeyedFile;
}

export interface ChangesExport {
  agentId: string;
  agentName: string;
  /** Every exported file, in walk order. */
  files: ExportedFile[];
  layers: ReturnType<typeof layersOf>;
  statContext: string;
  excludedByAlfignore: number;
  warnings: string[];
  /** Every file unchanged and none came or went: `files` holds nothing opened, and the layers are not made. */
  allUnchanged: boolean;
}

export async function exportOpenclawChanges(opts: ExportOptions, priorOf: (agentId: string, context: string) => Promise<PriorFiles | null>): Promise<ChangesExport> {
  if (!(await isDir(opts.workspace))) throw new OpenclawExportError(`workspace not found or not a directory: ${opts.workspace}`);
  const agentId = await readOrMintAgentId({ workspace: opts.workspace, runtime: 'openclaw', persist: opts.persistAgentId });
  opts.onAgentId?.(agentId);
  const { files: rels, excluded, staging, linkWarnings } = await rawFileSet(opts.workspace);
  const v41Layout = await isV41Layout(opts.workspace);
  const statContext = v41Layout ? 'v41' : 'flat';
  const prior = await priorOf(agentId, statContext);
  const files: ExportedFile[] = [];
  const warnings: string[] = [...stagingWarnings(opts.workspace, staging), ...linkWarnings];
  let unopened = 0;
  let opened = 0;
  const absOf = absPathsIn(opts.workspace);
  const unopenedOf = { agentId, v41Layout, prior: prior! };
  for (let i = 0; i < rels.length; i++) {
    const rel = rels[i]!;
    const abs = absOf(rel);
    const handler = isMarkdownPath(rel) ? handlerFor(rel) : null;
    const stat = prior ? statFile(abs) : null;
    const same = stat && prior!.unchanged(rel, stat);
    // Unchanged: a record-bearing file only with the keys of its digest (else it is read).
    if (same && (handler === null || same.digest !== null)) {
      unopened++;
      const { digest } = same;
      const entry = { ino: stat!.ino, size: stat!.size, mtimeNs: stat!.mtimeNs, ctimeNs: stat!.ctimeNs, digest };
      files.push(new UnopenedFile(rel, entry, handler, unopenedOf));
      continue;
    }
    // Files read are chunked synchronously, with a turn of the event loop now and then (the
    // deflate-ahead worker's results come in meanwhile).
    if (++opened % YIELD_EVERY_FILES === 0) await new Promise((resolve) => setImmediate(resolve));
    const read = readWithMtime(abs);
    const bytes = asUint8Array(read.bytes);
    const digest = handler === null ? undefined : fileDigest(agentId, rel, tierFor(rel, v41Layout), bytes);
    if (digest !== undefined && prior?.digest(rel) === digest) {
      // The bytes the last sync recorded (a file touched, or racy): nothing to deflate or chunk now.
      files.push({
        rel, stat: { ...read.stat, digest }, bytes, records: true, ...sortKeyOf(rel, handler!, read.stat.mtimeNs),
        keyed: () => keyedFromKeys({ agentId, rel, mtime: read.mtime, v41Layout, keys: prior.keys(rel, digest) ?? [], textAgain: () => UTF8.decode(bytes) }),
      });
      continue;
    }
    // Keyed ahead (the same bytes and mtime, against this state): taken as it is, with the bytes
    // whose Deflate was started then.
    const ahead = digest === undefined ? undefined : prior?.ahead?.(rel, digest, read.mtime);
    if (ahead) {
      files.push({ rel, stat: { ...read.stat, digest: digest! }, bytes: ahead.bytes, records: true, ...sortKeyOf(rel, handler!, read.stat.mtimeNs), keyed: () => ahead.keyed });
      continue;
    }
    // A file read is most likely a changed one, whose bytes the upload deflates (deflate-ahead.ts).
    if (handler !== null || !prior?.sameBytes(rel, bytes)) deflateAhead(bytes);
    const file = keyReadFile({ agentId, rel, bytes, mtime: read.mtime, v41Layout, digest, prior });
    if (file.warning !== undefined) warnings.push(file.warning);
    // A record-bearing file without a digest (not UTF-8) is read every time, as its warning says.
    const next = file.digest !== undefined || handler === null ? { ...read.stat, digest: file.digest ?? null } : null;
    files.push({
      rel, stat: next, bytes, records: file.keyed !== null, ...(file.keyed ? sortKeyOf(rel, handler!, read.stat.mtimeNs) : NO_SORT_KEY),
      keyed: () => file.keyed!,
    });
  }
  if (prior && unopened === rels.length && prior.count === rels.length) {
    return { agentId, agentName: '', files, layers: {}, statContext, excludedByAlfignore: excluded, warnings, allUnchanged: true };
  }
  // The root prose files make the layers: those not opened are taken from the prior state.
  const raw = new Map<string, Uint8Array>();
  const mtimes = new Map<string, string>();
  for (const f of files) {
    if (f.rel.includes('/') || f.rel === 'MEMORY.md') continue;
    raw.set(f.rel, f.bytes ?? prior!.bytes(f.rel));
    // Root files bear no records: their stat data are always recorded.
    mtimes.set(f.rel, formatNanos(f.stat!.mtimeNs));
  }
  const prose = readProse(raw, mtimes);
  return {
    agentId, agentName: agentName(opts.workspace, prose['IDENTITY.md']?.text), files, layers: layersOf(agentId, prose),
    statContext, excludedByAlfignore: excluded, warnings, allUnchanged: false,
  };
}

/**
 * A file the export read, keyed as a sync keys it: from the keys the state remembers for its digest,
 * else chunked, its sections unchanged since the state's keying taking over their keys. What a
 * watch's keying ahead runs too (lib/sync/store/keys-ahead.ts), so that its result is this one.
 */
export function keyReadFile(args: { agentId: string; rel: string; bytes: Uint8Array; mtime: string; v41Layout: boolean; digest?: string; prior: PriorFiles | null }): ReturnType<typeof keyedFileOf> {
  const { rel, prior } = args;
  const fileKeys = { get: (d: string) => prior?.keys(rel, d) };
  return keyedFileOf({ ...args, fileKeys, previous: () => prior?.previous(rel) });
}

/**
 * A file not opened (its stat data unchanged): keyed, if a sync asks, from the keys of its digest.
 * A class, not an object with a closure: most files of a sync are these, one per file each time.
 */
class UnopenedFile implements ExportedFile {
  readonly bytes = null;
  readonly records: boolean;
  readonly sortMs: number;
  readonly sortNs: number;

  constructor(
    readonly rel: string,
    readonly stat: StatEntry,
    /** Its handler (null: it bears no records). */
    handler: Handler | null,
    private readonly of: { agentId: string; v41Layout: boolean; prior: PriorFiles },
  ) {
    this.records = handler !== null;
    const key = handler === null ? NO_SORT_KEY : sortKeyOf(rel, handler, stat.mtimeNs);
    this.sortMs = key.sortMs;
    this.sortNs = key.sortNs;
  }

  keyed(): KeyedFile {
    const { agentId, v41Layout, prior } = this.of;
    const { rel, stat } = this;
    return keyedFromKeys({ agentId, rel, mtime: formatNanos(stat.mtimeNs), v41Layout, keys: prior.keys(rel, stat.digest!) ?? [], textAgain: () => UTF8.decode(prior.bytes(rel)) });
  }
}

const NO_SORT_KEY = { sortMs: 0, sortNs: 0 } as const;

/** The instant of the created_at a file's records get (records.ts `temporal`): a dated file's day, else its mtime. */
function sortKeyOf(rel: string, handler: Handler, mtimeNs: bigint): { sortMs: number; sortNs: number } {
  const day = handler.dated ? fileNameDay(rel) : null;
  return day === null ? { sortMs: Number(mtimeNs / 1_000_000n), sortNs: Number(mtimeNs % 1_000_000n) } : { sortMs: day, sortNs: 0 };
}

/** The workspace's agent id (minted and written when it has none), before anything is exported. */
export async function openclawAgentId(workspace: string): Promise<string> {
  if (!(await isDir(workspace))) throw new OpenclawExportError(`workspace not found or not a directory: ${workspace}`);
  return readOrMintAgentId({ workspace, runtime: 'openclaw', persist: true });
}
