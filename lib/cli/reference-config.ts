/**
 * A reference `alf` CLI user's first `lineage sync` that names no target. The reference keeps its
 * service in `$ALF_HOME/.alf/config.toml` (`[service] api_url`, `api_key`; CONTRACT §1.1, §2.4) and
 * its state of an agent in `state/{agent}.toml` + `{agent}-snapshot.alf`, which lineage reads as
 * its own. A `lineage sync` with no `--server`, `--data`, `--database-url`/`--blob-url` (nor
 * `LINEAGE_DATA`, `LINEAGE_DATABASE_URL`/`LINEAGE_BLOB_URL`) syncs to the local data directory
 * (`./data`): for a state with no lineage target mark (target-mark.ts) that directory has nothing of,
 * that is a first sync there, which rewrites the reference's TOML and base to follow `./data` from
 * then on — the reference's next sync, and lineage's with `--server`, would need `--rebase`.
 *
 * So such a sync is refused, nothing read beyond these files and nothing written, when the agent's
 * state has a synced sequence and no target mark and the config names a service (`api_url` or
 * `api_key`): the hint gives the `--server` command for the service the config names, and `--data
 * DIR` for a local sync on purpose. lineage does not take the config's service as its target by
 * itself: `alf login` writes the default `https://api.agent-life.ai` there, and an everyday `lineage
 * sync` would then upload a workspace to a service the user never named to lineage. A target named
 * in any way (a flag or a variable) is never refused here; nor is a state lineage has marked.
 */
import path from 'node:path';
import { parse } from 'smol-toml';
import type { Runtime } from '@/lib/adapters/types';
import { scaleOutRequested } from '@/lib/storage/scale-out-requested';
import { SyncError } from '@/lib/sync/errors';
import { readClientState, readSmallFile } from '@/lib/sync/state';
import { readTargetMark } from '@/lib/sync/target-mark';
import type { TargetFlags } from '@/lib/sync/targets';

/** The reference CLI's built-in service (CONTRACT §1.1), which `alf login` writes into the config. */
export const REFERENCE_DEFAULT_API_URL = 'https://api.agent-life.ai';

const given = (value: string | undefined) => value !== undefined && value !== '';

/** Whether the command names its target: a flag or a variable; otherwise it is the default `./data`. */
export function targetNamed(flags: TargetFlags, env: NodeJS.ProcessEnv): boolean {
  return given(flags.server) || given(flags.data) || given(env.LINEAGE_DATA) || scaleOutRequested(env, flags);
}

/**
 * The service a reference config names (`alfHome` is `$ALF_HOME/.alf`): its `service.api_url`
 * (trailing `/` stripped), else `ALF_API_URL`, else the reference's default, as the reference
 * reads them; null when there is no config, it cannot be read as TOML, or it names neither an
 * `api_url` nor an `api_key` in `[service]`.
 */
export function referenceService(alfHome: string, env: NodeJS.ProcessEnv): { apiUrl: string; configPath: string; keyInConfig: boolean } | null {
  const configPath = path.join(alfHome, 'config.toml');
  let service: unknown;
  try {
    const text = readSmallFile(configPath);
    if (text === null) return null;
    service = (parse(text) as Record<string, unknown>).service;
  } catch {
    return null;
  }
  if (service === null || typeof service !== 'object') return null;
  const { api_url: url, api_key: key } = service as { api_url?: unknown; api_key?: unknown };
  const apiUrl = typeof url === 'string' && url.trim() !== '' ? url.trim().replace(/\/+$/, '') : null;
  const keyInConfig = typeof key === 'string' && key.trim() !== '';
  if (apiUrl === null && !keyInConfig) return null;
  return { apiUrl: apiUrl ?? (given(env.ALF_API_URL) ? env.ALF_API_URL!.replace(/\/+$/, '') : REFERENCE_DEFAULT_API_URL), configPath, keyInConfig };
}

/** A word of a command as a shell takes it: quoted when it holds anything but the plain characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Refuses (`target_changed`, nothing written) a sync that names no target of an agent whose state
 * the reference CLI wrote for the service its config names (see the top of this file).
 */
export async function refuseUnnamedTargetOfReferenceState(args: {
  flags: TargetFlags;
  env: NodeJS.ProcessEnv;
  alfHome: string;
  runtime: Runtime;
  workspace: string;
  runtimeAgent?: string;
  /** `--agent-id`: the id the workspace takes. */
  agentId?: string;
  /** The default data directory the sync would go to. */
  dataDir: string;
  rebase: boolean;
  /** The command refused: `lineage sync` (the default) or `lineage watch`, whose syncs would do the same. */
  command?: 'lineage sync' | 'lineage watch';
}): Promise<void> {
  if (targetNamed(args.flags, args.env)) return;
  // Most machines have no reference config: one small read, and the sync goes on.
  const service = referenceService(args.alfHome, args.env);
  if (service === null) return;
  let agentId: string;
  try {
    // Loaded only here (it reads a ZeroClaw brain.db through the adapter): not on an everyday sync's path.
    const { workspaceAgentId } = await import('./workspace-agent-id');
    agentId = args.agentId ?? (await workspaceAgentId(args.runtime, args.workspace, args.runtimeAgent));
  } catch {
    return; // A workspace the sync itself refuses, in its own words.
  }
  if (readTargetMark(args.alfHome, agentId) !== null) return;
  const state = await readClientState(args.alfHome, agentId).catch(() => null);
  if (state?.last_synced_sequence === undefined) return;
  const command = [
    args.command ?? 'lineage sync', ...(args.rebase ? ['--rebase'] : []), '-r', args.runtime, '-w', shellWord(args.workspace),
    ...(args.runtimeAgent === undefined ? [] : ['--runtime-agent', shellWord(args.runtimeAgent)]),
  ].join(' ');
  const key = service.keyInConfig ? `service.api_key in ${service.configPath}` : 'your API key';
  throw new SyncError(
    'target_changed',
    `this ${args.command === 'lineage watch' ? 'watch' : 'sync'} names no target, so it would go to the local data directory ${args.dataDir}, but this machine's sync state of agent ${agentId} (sequence ${state.last_synced_sequence}) has no lineage target mark — the reference alf CLI wrote it (or a lineage from before target marks) — and ${service.configPath} names the service ${service.apiUrl}: ${args.command === 'lineage watch' ? 'its syncs' : 'a sync'} to ${args.dataDir} would make the state follow it instead; nothing was synced or written`,
    `to sync with that service run \`${command} --server ${shellWord(service.apiUrl)} --key KEY\` (KEY: ${key}, or set ALF_API_KEY); to sync into a local data directory on purpose, name it: \`${command} --data DIR\``,
  );
}
