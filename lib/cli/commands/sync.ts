import type { Command } from 'commander';
import { systemClock } from '@/lib/core/clock';
import { SyncError } from '@/lib/sync/errors';
import { alfDir } from '@/lib/sync/state';
import { syncWorkspace } from '@/lib/sync/sync';
import { resolveTarget, targetOptions, type TargetFlags } from '@/lib/sync/targets';
import { parseRuntime, requireOption } from '../parse-options';
import { printJson, progress } from '../output';

interface SyncFlags extends TargetFlags {
  runtime?: string;
  workspace?: string;
  runtimeAgent?: string;
  forceFirstSync?: boolean;
  rebase?: boolean;
}

export function registerSyncCommand(program: Command): void {
  targetOptions(
    program
      .command('sync')
      .description('export a workspace, reconcile it against the last sync and upload a snapshot or delta')
      .option('-r, --runtime <runtime>', 'openclaw | zeroclaw | hermes', 'openclaw')
      .option('-w, --workspace <dir>', 'the agent workspace (Hermes: its home)')
      .option('--runtime-agent <alias>', 'ZeroClaw: agents.alias of the agent to sync')
      .option('--force-first-sync', 'upload a full snapshot even if the target already has history for this agent', false)
      .option('--rebase', "take the target's latest state as this machine's base, leaving the workspace as it is; the next sync uploads the difference", false),
  ).action(async (flags: SyncFlags) => {
    if (flags.rebase) {
      if (flags.forceFirstSync) throw new SyncError('invalid_argument', 'use either --rebase or --force-first-sync, not both');
      const { rebaseWorkspace } = await import('@/lib/sync/rebase');
      const rebased = await rebaseWorkspace({
        runtime: parseRuntime(flags.runtime),
        workspace: requireOption(flags.workspace, '-w/--workspace'),
        runtimeAgent: flags.runtimeAgent,
        target: resolveTarget(flags),
        alfHome: alfDir(),
        clock: systemClock,
        log: progress,
      });
      printJson(rebased);
      return;
    }
    const output = await syncWorkspace({
      runtime: parseRuntime(flags.runtime),
      workspace: requireOption(flags.workspace, '-w/--workspace'),
      runtimeAgent: flags.runtimeAgent,
      forceFirstSync: Boolean(flags.forceFirstSync),
      target: resolveTarget(flags),
      alfHome: alfDir(),
      clock: systemClock,
      log: progress,
    });
    printJson(output);
  });
}
