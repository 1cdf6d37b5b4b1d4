/**
 * Workspace control files owned by the sync client rather than by the agent runtime.
 * They decide which workspace files may ride in the raw channel.
 */

/** `<workspace>/.alf-agent-id`: the agent's UUID, written without a trailing newline (CONTRACT §2.4). */
export const AGENT_ID_FILE = '.alf-agent-id';

/** `<workspace>/.alf-synced.json`: what the workspace was last synced/restored from (issue 4 item 5). */
export const SYNCED_MARKER_FILE = '.alf-synced.json';

/** `<workspace>/.alfignore`: gitignore-like exclusions for the raw channel. */
export const ALFIGNORE_FILE = '.alfignore';

/** Tracked-file list and its removal log: carried raw when present (CONTRACT §3.3). */
export const INCLUDE_FILE = '.alf-include.json';
export const SYNC_LOG_FILE = '.alf-sync-log.md';

/**
 * Files that are NEVER carried in the raw channel, whatever the adapter's file set says:
 * the agent id is restored from the archive's manifest, and the synced marker describes
 * one particular workspace copy, so carrying either would make a restore lie.
 */
export const NEVER_RAW_FILES: readonly string[] = [AGENT_ID_FILE, SYNCED_MARKER_FILE];

/** True when a workspace-relative path must never appear under `raw/<runtime>/`. */
export function isNeverRaw(relPath: string): boolean {
  return NEVER_RAW_FILES.includes(relPath);
}

/** Runtime sidecars such as `.alf-brain-db-schema.json`: restore skips them (CONTRACT §6 step 5). */
export function isRuntimeSidecar(relPath: string): boolean {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1);
  return /^\.alf-.*-schema\.json$/.test(base);
}
