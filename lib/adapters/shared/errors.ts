import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * A problem with a store or a restore target that the user can fix (a missing workspace, a file
 * that would be overwritten, an unreadable database). `code` follows the reference CLI's registry
 * where one fits; the CLI prints it as `{ok:false, code, error}`.
 */
export class AdapterError extends Error {
  readonly hint?: string;

  constructor(
    readonly code: 'workspace_missing' | 'restore_incomplete' | 'bad_store' | 'invalid_runtime' | 'workspace_file_invalid',
    message: string,
    options?: { cause?: unknown; hint?: string },
  ) {
    super(message, options);
    this.name = 'AdapterError';
    if (options?.hint !== undefined) this.hint = options.hint;
  }
}

/**
 * A stored record the runtime's database cannot take back — a value no column holds, a session
 * without a text id — as an archive another client wrote may carry. Thrown before a file is in
 * place and inside the database's one transaction, so nothing is changed; the records can still be
 * read as files through a cross-runtime restore.
 */
export function unrestorableRecord(what: string): AdapterError {
  return new AdapterError('restore_incomplete', `cannot write the agent's records back: ${what}; nothing was changed`, {
    hint: 'restore the agent with `-r openclaw --out DIR` to read its records as OpenClaw files',
  });
}

/**
 * A control file of a workspace (`.alf-agent-id`, `.alfignore`, `.alf-synced.json`) read whole:
 * its text, or null when there is none. One that is there but no regular file (a directory, a
 * FIFO, which a read would wait on for ever) is the user's to fix: `workspace_file_invalid`,
 * saying what lineage keeps in it. Synchronous: a few bytes, read at the start of a sync.
 */
export function readControlFile(file: string, holds: string): string | null {
  const info = statSync(file, { throwIfNoEntry: false });
  if (info === undefined) return null;
  if (!info.isFile()) throw notAFile(file, holds, info.isDirectory() ? 'a directory' : 'not a regular file');
  return readFileSync(file, 'utf8');
}

/** The error of a control file that is `what` instead of a file (readControlFile; a write that meets a directory). */
export function notAFile(file: string, holds: string, what = 'a directory'): AdapterError {
  return new AdapterError('workspace_file_invalid', `${file} is ${what}: lineage keeps ${holds} in a file of that name`, {
    hint: `move ${file} out of the way (lineage writes or reads that name itself), then run the command again`,
  });
}

/**
 * A control file lineage writes into a workspace (`.alf-agent-id`, `.alf-synced.json`) that cannot be
 * written there — a read-only mount, a directory the user may not write: `workspace_file_invalid`,
 * the user's to fix; null for any other failure.
 */
export function notWritable(file: string, holds: string, error: unknown): AdapterError | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') return null;
  const why = code === 'EROFS' ? 'it is on a read-only filesystem' : 'permission denied';
  return new AdapterError('workspace_file_invalid', `cannot write ${file} (${why}): lineage keeps ${holds} in a file of that name`, {
    cause: error,
    hint: `make ${path.dirname(file)} writable for lineage, then run the command again`,
  });
}

/** A workspace that must be there, as a directory (a sync's or an export's): else `workspace_missing`. */
export function requireWorkspace(dir: string): void {
  let info;
  try {
    info = statSync(dir, { throwIfNoEntry: false });
  } catch {
    info = undefined; // ENOTDIR: a file above it
  }
  if (!info?.isDirectory()) {
    throw new AdapterError('workspace_missing', `workspace not found or not a directory: ${dir}`, { hint: "pass -w the agent workspace's directory" });
  }
}
