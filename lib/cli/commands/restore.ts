import type { Command } from 'commander';
import type { Runtime } from '@/lib/adapters/types';
import { systemClock } from '@/lib/core/clock';
import { assertEmptyOrMissing, restoreAgent } from '@/lib/sync/restore';
import { alfDir } from '@/lib/sync/state';
import { SyncError } from '@/lib/sync/errors';
import type { SyncTarget } from '@/lib/sync/target';
import { targetOptions, type TargetFlags } from '@/lib/sync/targets';
import { cliTarget } from '../target';
import { clientStateDir, creatableDir, parseAgentId, parseRuntime, parseRuntimeAgent, parseSequence } from '../parse-options';
import { CliError, printJson, progress } from '../output';
import { workspaceAgentId } from '../workspace-agent-id';

interface RestoreFlags extends TargetFlags {
  runtime?: string;
  workspace?: string;
  out?: string;
  agent?: string;
  atSequence?: string;
  replace?: boolean;
  runtimeAgent?: string;
}

/**
 * What the target holds of the agent, asked before anything is locked or written: a restore into a
 * live workspace takes the agent's lock (creating its file) before it fetches the plan, so an
 * agent the target does not have left a lock file behind. Nothing there: the plan asked for
 * anyway, which fails in the target's own words (`agent_not_found`, `never_synced`, with their
 * hints). `--at-sequence` past the latest is said in the CLI's words: the ledger's speak of the
 * API's `up_to_sequence`, and over HTTP it came back as `agent_not_found` (the API's 404).
 */
async function checkRestorable(target: SyncTarget, agentId: string, atSequence: number | undefined): Promise<void> {
  const latest = await target.latestEntry(agentId);
  if (latest === null) {
    try {
      await target.fetchRestore(agentId, atSequence);
    } catch (error) {
      // The ledger's refusal names the agent only (the HTTP target's 404 too): say where to look.
      if (error instanceof SyncError && error.code === 'agent_not_found' && !error.hint) {
        throw new SyncError(error.code, error.message, 'check the agent id (the dashboard lists them; so does a server\'s `GET /v1/agents` with the key, even one serving the protocol only: the agents that key sees, another tenant\'s being not found) and where it was synced to: --data DIR, or --server URL --key KEY');
      }
      throw error;
    }
    return;
  }
  if (atSequence !== undefined && atSequence > latest.sequence) {
    throw new CliError('sequence_out_of_range', `--at-sequence ${atSequence} is past the latest sequence of agent ${agentId}, which is ${latest.sequence}`,
      `pass --at-sequence a sequence from 0 to ${latest.sequence}, or leave it out to restore the latest`);
  }
}

export function registerRestoreCommand(program: Command): void {
  targetOptions(
    program
      .command('restore')
      .description('rebuild an agent at a sequence into a fresh directory (--out) or a live workspace (-w)')
      .option('-r, --runtime <runtime>', 'runtime to write: openclaw | zeroclaw | hermes', 'openclaw')
      .option('-w, --workspace <dir>', 'live workspace: written only on initialize, or with --replace')
      .option('--out <dir>', 'a new or empty directory to write the restored workspace into')
      .option('--agent <id>', 'ALF agent id (default: the workspace .alf-agent-id)')
      .option('--at-sequence <n>', 'point in time (default: latest)')
      .option('--replace', 'apply a prompt-update: overwrite local memory with the restored state', false)
      .option('--runtime-agent <alias>', 'ZeroClaw: agents.alias whose rows are restored'),
  ).action(async (flags: RestoreFlags) => {
    const runtime = parseRuntime(flags.runtime);
    const runtimeAgent = parseRuntimeAgent(runtime, flags.runtimeAgent);
    if (!flags.out && !flags.workspace) throw new CliError('workspace_missing', 'restore needs --out DIR or -w WORKSPACE');
    if (flags.out && flags.workspace) throw new CliError('invalid_argument', 'use either --out or -w, not both');
    if (flags.out && flags.replace) throw new CliError('invalid_argument', '--replace applies to a live workspace (-w), not to --out', '--out writes a new or empty directory: leave --replace out');
    const atSequence = parseSequence(flags.atSequence, '--at-sequence');
    // A file where the directory would be is refused before anything is read (it was an internal error).
    if (flags.out) creatableDir(flags.out, '--out', 'pass --out a new or empty directory');
    if (flags.workspace) creatableDir(flags.workspace, '-w/--workspace', 'pass -w the agent workspace\'s directory');
    // Into a live workspace, a head restore writes the client state too (after the workspace).
    const alfHome = flags.workspace ? clientStateDir(alfDir()) : alfDir();
    // The target's settings before the agent: a bad one is said first, whatever the agent.
    const target = await cliTarget(flags, 'lineage restore');
    // A --out that is not empty was refused only once the whole history had been fetched and folded.
    if (flags.out) await assertEmptyOrMissing(flags.out);
    const agentId = flags.agent !== undefined ? parseAgentId(flags.agent, '--agent')
      : flags.workspace ? await workspaceAgentId(runtime, flags.workspace, runtimeAgent) : undefined;
    if (!agentId) throw new CliError('agent_not_found', 'restore --out needs --agent ID', 'agent ids are on the dashboard and in GET /api/agents');
    await checkRestorable(target, agentId, atSequence);
    const output = await restoreAgent({
      runtime,
      target,
      agentId,
      atSequence,
      out: flags.out,
      workspace: flags.workspace,
      runtimeAgent,
      replace: Boolean(flags.replace),
      alfHome,
      clock: systemClock,
    });
    if (output.removed_staging) progress(`removed ${output.removed_staging.length} staging file${output.removed_staging.length === 1 ? '' : 's'} an interrupted restore left: ${output.removed_staging.join(', ')}`);
    // Said on stderr as a sync says them (a killed restore's leftovers kept, above all).
    for (const warning of output.warnings ?? []) progress(`warning: ${warning}`);
    if (output.action === 'prompt-update' && !output.applied) progress(`local memory differs from sequence ${output.sequence}; nothing written (use --replace to overwrite)`);
    printJson(output);
  });
}
