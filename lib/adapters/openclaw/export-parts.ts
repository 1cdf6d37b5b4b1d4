/**
 * What the two OpenClaw exports share (the full one, export.ts, and the one of a sync that keeps
 * its state per file, export-changes.ts): the file set, the layout, keying a file that was read,
 * and the layers made from the root prose files.
 */
import type { JsonObject } from '@/lib/core/json';
import { loadAlfIgnore } from '../shared/alfignore';
import { isStagingPath, rootStagingFiles } from '../shared/restore-staging';
import { INCLUDE_FILE, SYNC_LOG_FILE, isNeverRaw } from '../shared/sync-marker';
import { fileInside, isEnvFile, isPlainFileSync, linkWarningsOf, refusedLinkTargets, walkFiles, walkPlainFilesSync } from '../shared/walk';
import type { ExportResult, FileKeys } from '../types';
import { V41_MARKER_DIRS, handlerFor, tierFor } from './handlers';
import { agentName, identityLayer, principalsLayer, type ProseFiles } from './layers';
import { fileDigest, keyedFile, keyedFileFromKeys, type KeyedFile, type PreviousKeying } from './records';
import type { KeySource } from './section-keys';
import { MEMORY_DIR, ROOT_FILES, absPath, isDir, newest } from './workspace-files';

/**
 * Root files + everything under `memory/` + include list and sync log, minus `.alfignore`,
 * never-raw files and `.env` files (`memory/.env`: secrets, as no runtime carries them), and minus a restore's staging files, which are listed (`staging`: those of the
 * root too, from one listing of it); the links not followed are said in `linkWarnings`: a
 * directory link back up to `memory/` or above, a link (a root file looked up by name as one
 * the walk lists) to a control file of the workspace or a `.env` (`refusesLinkTo`: OpenClaw refuses
 * no other), and a link that leads out of the workspace (`MEMORY.md -> ~/Dropbox/notes.md`).
 */
export async function rawFileSet(workspace: string): Promise<{ files: string[]; excluded: number; staging: string[]; linkWarnings: string[] }> {
  const ignored = await loadAlfIgnore(workspace);
  const found: string[] = [];
  const linkTargets = new Map<string, string>();
  const outside = new Map<string, string>();
  for (const rel of [...ROOT_FILES, INCLUDE_FILE, SYNC_LOG_FILE]) {
    // A plain file (or none) is told synchronously; a symlink is followed only if it stays inside.
    const plain = isPlainFileSync(workspace, rel);
    if (plain === true) found.push(rel);
    else if (plain === null) {
      const file = await fileInside(workspace, rel, outside);
      if (file === null) continue;
      found.push(rel);
      if (file.target !== undefined) linkTargets.set(rel, file.target);
    }
  }
  const skippedLinks: string[] = [];
  found.push(...(walkPlainFilesSync(workspace, MEMORY_DIR) ?? (await walkFiles(workspace, MEMORY_DIR, skippedLinks, linkTargets, outside))));
  const { kept: candidates, refused } = refusedLinkTargets(found, linkTargets, refusesLinkTo);
  const files: string[] = [];
  const staging = rootStagingFiles(workspace, [MEMORY_DIR]);
  let excluded = 0;
  for (const rel of candidates) {
    if (isNeverRaw(rel) || isEnvFile(rel)) continue; // a `.env` anywhere: secrets, never carried (CONTRACT §9)
    if (isStagingPath(rel)) staging.push(rel);
    else if (ignored(rel)) excluded++;
    else files.push(rel);
  }
  return { files, excluded, staging, linkWarnings: linkWarningsOf(workspace, skippedLinks, refused, ignored, outside) };
}

/**
 * The files OpenClaw never carries, nor a restore writes, under another name — beside a `.env` and
 * a control file, which no runtime does (`isRefusedTarget`): none. Its secrets (`auth-profiles.json`,
 * the gateway's `.env`) live outside the workspace, where no link is followed.
 */
export function refusesLinkTo(_target: string): boolean {
  return false;
}

export async function isV41Layout(workspace: string): Promise<boolean> {
  for (const dir of V41_MARKER_DIRS) if (await isDir(absPath(workspace, dir))) return true;
  return false;
}

/** Files read and chunked between two turns of the event loop (a few milliseconds of work). */
export const YIELD_EVERY_FILES = 16;

export const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `MEMORY.md` or a markdown file under `memory/`: the paths the handlers are asked about. */
export const isMarkdownPath = (rel: string) => rel === 'MEMORY.md' || (rel.startsWith(`${MEMORY_DIR}/`) && rel.endsWith('.md'));

/** A markdown path one of the handlers turns into records. */
export const isRecordBearing = (rel: string) => isMarkdownPath(rel) && handlerFor(rel) !== null;

/**
 * A record-bearing file, keyed: from the keys remembered for its digest when there are (nothing is
 * decoded or chunked), else chunked. Files that are not valid UTF-8 have no records (and no keys
 * are remembered for them, so their digest is never found).
 */
export function keyedFileOf(args: {
  agentId: string;
  rel: string;
  bytes: Uint8Array;
  mtime: string;
  v41Layout: boolean;
  /** The keys remembered for a digest, if any. */
  fileKeys: Pick<FileKeys, 'get'>;
  /** Its digest, when the caller has made it already. */
  digest?: string;
  /** Its bytes and keys when it was keyed last, if known (its unchanged sections keep their keys unhashed). */
  previous?: () => { bytes: Uint8Array; keys: KeySource } | undefined;
}): { keyed: KeyedFile | null; digest?: string; warning?: string } {
  const handler = isMarkdownPath(args.rel) ? handlerFor(args.rel) : null;
  if (!handler) return { keyed: null };
  const tier = tierFor(args.rel, args.v41Layout);
  const digest = args.digest ?? fileDigest(args.agentId, args.rel, tier, args.bytes);
  const textAgain = () => UTF8.decode(args.bytes);
  const known = args.fileKeys.get(digest);
  if (known) return { keyed: keyedFileFromKeys(args.agentId, { relPath: args.rel, mtime: args.mtime, handler, tier }, known, textAgain), digest };
  let text: string;
  try {
    text = UTF8.decode(args.bytes);
  } catch {
    return { keyed: null, warning: `${args.rel}: not valid UTF-8, kept as a raw file only` };
  }
  return { keyed: keyedFile(args.agentId, { relPath: args.rel, text, mtime: args.mtime, handler, tier }, textAgain, previousKeying(args.previous)), digest };
}

function previousKeying(previous: (() => { bytes: Uint8Array; keys: KeySource } | undefined) | undefined): PreviousKeying | undefined {
  const known = previous?.();
  if (known === undefined) return undefined;
  try {
    return { text: UTF8.decode(known.bytes), keys: known.keys };
  } catch {
    return undefined;
  }
}

/**
 * A record-bearing file not opened, keyed from the keys remembered for it; `textAgain` gives its
 * text (from wherever its bytes are kept) if a record of it is built.
 */
export function keyedFromKeys(args: { agentId: string; rel: string; mtime: string; v41Layout: boolean; keys: readonly string[]; textAgain: () => string }): KeyedFile {
  const handler = handlerFor(args.rel)!;
  return keyedFileFromKeys(args.agentId, { relPath: args.rel, mtime: args.mtime, handler, tier: tierFor(args.rel, args.v41Layout) }, args.keys, args.textAgain);
}

export function readProse(raw: ReadonlyMap<string, Uint8Array>, mtimes: ReadonlyMap<string, string>): ProseFiles {
  const prose: ProseFiles = {};
  for (const rel of ROOT_FILES) {
    const bytes = raw.get(rel);
    if (!bytes || rel === 'MEMORY.md') continue;
    prose[rel] = { text: Buffer.from(bytes).toString('utf8'), mtime: mtimes.get(rel)! };
  }
  return prose;
}

export function layersOf(agentId: string, prose: ProseFiles): ExportResult['layers'] {
  const layers: Partial<Record<'identity' | 'principals', JsonObject>> = {};
  const identitySources = ['SOUL.md', 'IDENTITY.md', 'AGENTS.md', 'TOOLS.md', 'HEARTBEAT.md', 'BOOTSTRAP.md'];
  const updatedAt = newest(identitySources.flatMap((f) => (prose[f] ? [prose[f]!.mtime] : [])));
  const identity = identityLayer(agentId, prose, updatedAt);
  if (identity) layers.identity = identity;
  const principals = principalsLayer(agentId, prose);
  if (principals) layers.principals = principals;
  return layers;
}

export { agentName };
