import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { requireWorkspace } from '@/lib/adapters/shared/errors';
import { isRuntime, type Runtime } from '@/lib/adapters/types';
import { parseUuid } from '@/lib/core/uuid';
import { unsafePortReason, urlPort } from '@/lib/client/unsafe-ports';
import { CliError } from './output';

export function parseRuntime(value: string | undefined): Runtime {
  const runtime = value ?? 'openclaw';
  if (!isRuntime(runtime)) throw new CliError('invalid_runtime', `unknown runtime "${runtime}"`, 'use one of: openclaw, zeroclaw, hermes');
  return runtime;
}

/**
 * `--runtime-agent`, which names one agent of a ZeroClaw `brain.db` (its `agents.alias`): an OpenClaw
 * workspace or a Hermes home holds one agent, and the flag was ignored there — silently, and with a
 * lock of its own (agent-lock.ts keys a Hermes sync by the flag too), so a Hermes sync with it and
 * one without could run at once on the same home.
 */
export function parseRuntimeAgent(runtime: Runtime, value: string | undefined): string | undefined {
  if (value === undefined || runtime === 'zeroclaw') return value;
  throw new CliError('invalid_argument', `--runtime-agent names an agent inside a ZeroClaw brain.db; ${runtime === 'openclaw' ? 'an OpenClaw workspace' : 'a Hermes home'} holds one agent`,
    'leave --runtime-agent out, or pass -r zeroclaw if the workspace is a ZeroClaw one');
}

/**
 * A whole number from 0 to `max` (by default the largest integer a double holds exactly: a
 * sequence past it would be rounded to another one).
 */
export function parseSequence(value: string | undefined, flag: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError('invalid_argument', `${flag} must be a non-negative integer, got "${value.slice(0, 40)}"`, `e.g. ${flag} 3`);
  const number = Number(value);
  if (number > max) throw new CliError('invalid_argument', `${flag} must be at most ${max}, got ${value.slice(0, 40)}`, `${flag} takes a whole number from 0 to ${max}`);
  return number;
}

export function requireOption<T>(value: T | undefined, flag: string, hint?: string): T {
  if (value === undefined || value === '') throw new CliError('invalid_argument', `missing required option ${flag}`, hint);
  return value;
}

/** An agent id as given to `--agent` (or `--agent-id`, with its own hint): a UUID, in its canonical lowercase form. */
export function parseAgentId(value: string, flag: string, hint = 'agent ids are on the dashboard, in GET /api/agents and in a workspace\'s .alf-agent-id'): string {
  const id = parseUuid(value);
  if (id === null) throw new CliError('invalid_argument', `${flag} must be a UUID, got "${value.slice(0, 80)}"`, hint);
  return id;
}

/** `--server`: an http(s) URL (anything else failed inside fetch, as an internal error) on a port fetch connects to. */
export function parseServerUrl(value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // said below
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new CliError('invalid_argument', `--server must be an http(s) URL, got "${value.slice(0, 200)}"`, 'e.g. --server http://127.0.0.1:3000');
  }
  // fetch refuses it before connecting ("bad port"), which read as a server out of reach.
  const unsafe = unsafePortReason(urlPort(url));
  if (unsafe !== null) throw new CliError('invalid_argument', `--server ${value.slice(0, 200)}: ${unsafe}`, 'serve the service on another port (`lineage serve --port 3000`) and pass that one');
  return value;
}

/**
 * The first option given an empty (or blank) value on the command line, as its flag: an empty
 * `--data "$DIR"` was taken for no `--data` at all (the default directory), an empty `--blob-url`
 * for none, an empty `--agent` for every agent.
 */
export function blankOption(command: Command): { flag: string; required: boolean } | null {
  for (const option of command.options) {
    const key = option.attributeName();
    const value: unknown = command.getOptionValue(key);
    if (command.getOptionValueSource(key) === 'cli' && typeof value === 'string' && value.trim() === '') {
      return { flag: option.long ?? option.short ?? key, required: option.mandatory };
    }
  }
  return null;
}

/** What is at `target`: a directory, something else, or nothing. */
function kindOf(target: string): 'dir' | 'other' | 'none' {
  let stat;
  try {
    stat = statSync(target, { throwIfNoEntry: false });
  } catch {
    return 'none'; // ENOTDIR: a file above it, found on the way up
  }
  return stat === undefined ? 'none' : stat.isDirectory() ? 'dir' : 'other';
}

/** Whether a directory is at `target` (never throws: a file above it is no directory either). */
export const isDirectory = (target: string): boolean => kindOf(target) === 'dir';

/**
 * Why no directory can be at `dir` (it, or the nearest thing above it that exists, is not a
 * directory), or null when it is one or could be made.
 */
export function notADirectory(dir: string): string | null {
  let at = path.resolve(dir);
  for (;;) {
    const kind = kindOf(at);
    if (kind === 'dir') return null;
    if (kind === 'other') return at === path.resolve(dir) ? `${at} is a file, not a directory` : `${at} is a file, so ${path.resolve(dir)} cannot be a directory`;
    const parent = path.dirname(at);
    if (parent === at) return null;
    at = parent;
  }
}

/** A directory a command may create (`--data`, `--out`): refused when a file is in the way. */
export function creatableDir(dir: string, flag: string, hint?: string): string {
  const why = notADirectory(dir);
  if (why !== null) throw new CliError('invalid_argument', `${flag}: ${why}`, hint ?? `pass ${flag} a directory`);
  return dir;
}

/**
 * `$ALF_HOME/.alf` (`alfHome`, from lib/sync/state.ts alfDir), where a command keeps the client
 * state, refused when a file stands in the way — before anything is uploaded or written: a sync
 * with ALF_HOME naming a file uploaded, then failed writing its state (ENOTDIR, an internal error).
 */
export function clientStateDir(alfHome: string): string {
  const why = notADirectory(alfHome);
  if (why !== null) throw new CliError('invalid_argument', `ALF_HOME: ${why}`, 'set ALF_HOME to a directory (the client state is kept in $ALF_HOME/.alf), or unset it to use $HOME');
  return alfHome;
}

/** A workspace that must already be there (`-w` of a command that reads it): the sync's own check. */
export function existingWorkspace(dir: string): string {
  requireWorkspace(dir);
  return dir;
}

/**
 * A workspace a command exports for `runtime` (sync, watch, export): there, as a directory, and for
 * ZeroClaw holding a `brain.db` — which the export refused only once a sync had taken the agent's
 * lock (making its file), in words with no hint; the OpenClaw export said a missing workspace
 * without the hint too, and the ZeroClaw one said "no brain.db" of a workspace that is not there.
 */
export async function runtimeWorkspace(dir: string, runtime: Runtime): Promise<string> {
  requireWorkspace(dir);
  if (runtime === 'zeroclaw') {
    const { findBrainDb, noBrainDbMessage } = await import('@/lib/adapters/zeroclaw/locate');
    if ((await findBrainDb(dir)) === null) {
      throw new CliError('workspace_missing', noBrainDbMessage(dir), 'pass -w the ZeroClaw workspace (its brain.db is in data/memory/, memory/ or the workspace itself), or -r the runtime it belongs to');
    }
  }
  return dir;
}
