import type { Command } from 'commander';
import { writeAgentIdFile } from '@/lib/adapters/shared/agent-id';
import { systemClock } from '@/lib/core/clock';
import { SyncError } from '@/lib/sync/errors';
import { alfDir } from '@/lib/sync/state';
import { syncWorkspace } from '@/lib/sync/sync';
import { targetOptions, type TargetFlags } from '@/lib/sync/targets';
import { refuseUnnamedTargetOfReferenceState } from '../reference-config';
import { cliTarget } from '../target';
import { clientStateDir, existingWorkspace, parseAgentId, parseRuntime, parseRuntimeAgent, requireOption, runtimeWorkspace } from '../parse-options';
import { printJson, progress } from '../output';

export interface SyncFlags extends TargetFlags {
  runtime?: string;
  workspace?: string;
  runtimeAgent?: string;
  forceFirstSync?: boolean;
  agentId?: string;
  rebase?: boolean;
  changeRuntime?: boolean;
}

/** The options `lineage sync` and `lineage watch` share: which workspace, which runtime, which target. */
export function workspaceSyncOptions(command: Command): Command {
  return targetOptions(
    command
      .option('-r, --runtime <runtime>', 'openclaw | zeroclaw | hermes', 'openclaw')
      .option('-w, --workspace <dir>', 'the agent workspace (Hermes: its home)')
      .option('--runtime-agent <alias>', 'ZeroClaw: agents.alias of the agent to sync'),
  );
}

/** `lineage sync`'s own options, besides the shared ones. */
export function syncOnlyOptions(command: Command): Command {
  return command
    .option('--agent-id <uuid>', 'give the workspace this agent id (written to its .alf-agent-id) before syncing')
    .option('--force-first-sync', 'upload a full snapshot even if the target already has history for this agent', false)
    .option('--change-runtime', 'sync although the agent was last synced as another runtime (a deliberate move: its records are re-keyed by this runtime); without it such a sync is refused', false)
    .option('--rebase', "take the target's latest state as this machine's base, leaving the workspace as it is; the next sync uploads the difference", false);
}

export function registerSyncCommand(program: Command): void {
  syncOnlyOptions(workspaceSyncOptions(
    program
      .command('sync')
      .description('export a workspace, reconcile it against the last sync and upload a snapshot or delta (through a running `lineage watch` of the same workspace and target, if there is one)'),
  )).action(async (flags: SyncFlags) => {
    if (flags.rebase && flags.forceFirstSync) throw new SyncError('invalid_argument', 'use either --rebase or --force-first-sync, not both');
    const runtime = parseRuntime(flags.runtime);
    const runtimeAgent = parseRuntimeAgent(runtime, flags.runtimeAgent);
    const workspace = requireOption(flags.workspace, '-w/--workspace');
    // `--agent-id <uuid>`: the workspace takes this id from now on (written to its .alf-agent-id), the
    // way out when another API key already holds the id it had (`agent_id_taken`).
    const agentId = flags.agentId === undefined ? undefined : parseAgentId(flags.agentId, '--agent-id', 'generate one with `uuidgen`');
    if (agentId !== undefined) existingWorkspace(workspace);
    const alfHome = clientStateDir(alfDir());
    const target = await cliTarget(flags, flags.rebase ? 'lineage sync --rebase' : 'lineage sync');
    // Before the sync takes the agent's lock (creating its file): a ZeroClaw workspace with no brain.db.
    await runtimeWorkspace(workspace, runtime);
    // No target named, and the agent's state is the reference CLI's for the service its config names:
    // refused before anything is written, not a first sync into ./data (reference-config.ts).
    await refuseUnnamedTargetOfReferenceState({ flags, env: process.env, alfHome, runtime, workspace, runtimeAgent, agentId, dataDir: target.label, rebase: Boolean(flags.rebase) });
    // Written once every flag is checked: a refused sync leaves the workspace's id as it was.
    if (agentId !== undefined) await writeAgentIdFile(workspace, agentId);
    const run = { runtime, workspace, runtimeAgent, target, alfHome, clock: systemClock, log: progress };
    if (flags.rebase) {
      const { rebaseWorkspace } = await import('@/lib/sync/rebase');
      printJson(await rebaseWorkspace(run));
      return;
    }
    printJson(await syncWorkspace({ ...run, forceFirstSync: Boolean(flags.forceFirstSync), changeRuntime: Boolean(flags.changeRuntime) }));
  });
}
