import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { alfDir, readClientState, statePaths } from '@/lib/sync/state';
import { storePaths } from '@/lib/sync/store/paths';
import { readIndex } from '@/lib/sync/store/index-file';
import { storeHolds } from '@/lib/sync/store/open-store';
import { baseIdentity } from '@/lib/sync/stat-cache';
import { readTargetMark } from '@/lib/sync/target-mark';
import { withAgentLock } from '@/lib/sync/agent-lock';
import { exportStateBase } from '@/lib/sync/state-export';
import { compactStopPoint, compactStore } from '@/lib/sync/store/compact';
import { clientStateDir, existingWorkspace, parseAgentId, parseRuntime, parseRuntimeAgent } from '../parse-options';
import { CliError, printJson } from '../output';
import { workspaceAgentId } from '../workspace-agent-id';

/**
 * `lineage state export`: writes `$ALF_HOME/.alf/state/{agent}-snapshot.alf`, the base the reference
 * CLI reads, from this machine's client state (lib/sync/state-export.ts). Run it before handing a
 * workspace synced with the store layout to the reference CLI. `lineage state show`: what that state
 * holds, and which target it follows; `lineage state compact`: its log rewritten.
 */
export function registerStateCommand(program: Command): void {
  const state = program.command('state').description("this machine's sync state of an agent (under ALF_HOME)");
  /** A subcommand about one agent: named by `--agent`, or by a workspace (`-w`, `-r`, and `--runtime-agent` for one agent of a ZeroClaw brain.db). */
  const ofAgent = (name: string, description: string, run: (agentId: string) => Promise<object>) => agentOptions(state.command(name).description(description))
    .exitOverride()
    .action(async (flags: AgentFlags) => {
      printJson(await run(await agentOf(name, flags)));
    });
  ofAgent('export', "write the agent's base .alf where the reference CLI reads it ($ALF_HOME/.alf/state/{agent}-snapshot.alf)",
    (agentId) => exportStateBase({ alfHome: clientStateDir(alfDir()), agentId }));
  ofAgent('show', "what this machine's sync state of the agent holds: its sequence, its layout, and the target it follows",
    (agentId) => showState(alfDir(), agentId));
  agentOptions(state
    .command('compact')
    .description("rewrite the agent's client-state log holding only what is live, when it holds more dead bytes than live ones (a sync starts this in the background)"))
    .option('--force', 'compact even when the log holds fewer dead bytes than live ones', false)
    .addOption(new Option('--alf-dir <dir>', 'the .alf directory (default: $ALF_HOME/.alf)').hideHelp())
    .exitOverride()
    .action(async (flags: AgentFlags & { force?: boolean; alfDir?: string }) => {
      const id = await agentOf('compact', flags);
      const alfHome = clientStateDir(flags.alfDir ?? alfDir());
      // No state of this agent (no TOML: the store is never opened without it): nothing to compact,
      // and nothing is written, not even a lock (the state directory is every agent's).
      if (!existsSync(statePaths(alfHome, id).toml)) return printJson(await compactStore({ alfHome, agentId: id }));
      compactStopPoint('started');
      printJson(await withAgentLock({ alfHome, key: id, what: `agent ${id}` }, async () => {
        compactStopPoint('locked');
        return compactStore({ alfHome, agentId: id, force: flags.force });
      }));
    });
}

/** How a `state` subcommand is told its agent (`agentOf`). */
type AgentFlags = { workspace?: string; runtime?: string; runtimeAgent?: string; agent?: string };

function agentOptions(command: Command): Command {
  return command
    .option('-w, --workspace <dir>', 'the synced workspace (its agent id)')
    .option('-r, --runtime <runtime>', 'openclaw | zeroclaw | hermes', 'openclaw')
    .option('--runtime-agent <alias>', 'ZeroClaw: agents.alias of the agent (with -w)')
    .option('--agent <id>', 'ALF agent id (default: the workspace .alf-agent-id)');
}

/**
 * The agent a `state` subcommand is about: `--agent`, or the workspace's id (never minted here) as its
 * sync computes it — for ZeroClaw the agent of its `brain.db` that `--runtime-agent` names (the first
 * owns the workspace's `.alf-agent-id`, another alias its derived id), refused as `agent_selection_ambiguous`
 * when the database holds several and none is named, as `sync`, `restore` and `export` refuse it.
 */
async function agentOf(command: string, flags: AgentFlags): Promise<string> {
  const runtime = parseRuntime(flags.runtime ?? 'openclaw');
  const runtimeAgent = parseRuntimeAgent(runtime, flags.runtimeAgent);
  if (runtimeAgent !== undefined && flags.agent !== undefined) {
    throw new CliError('invalid_argument', `--runtime-agent names an agent of the workspace's brain.db (-w); --agent names the agent itself: give one of them`,
      `run \`lineage state ${command} -r zeroclaw -w WORKSPACE --runtime-agent ALIAS\` or \`lineage state ${command} --agent ID\``);
  }
  const agentId = flags.agent ?? (flags.workspace ? await workspaceAgentId(runtime, existingWorkspace(flags.workspace), runtimeAgent) : undefined);
  if (!agentId) throw new CliError('invalid_argument', `state ${command} needs -w WORKSPACE or --agent ID`, `run \`lineage state ${command} --help\` for usage`);
  return parseAgentId(agentId, flags.agent !== undefined ? '--agent' : `the .alf-agent-id of ${flags.workspace}`);
}

/**
 * `lineage state show`: the agent's state as this machine keeps it — read only, nothing written,
 * no lock taken. `layout`: `store` (lib/sync/store), `alf` (`{agent}-snapshot.alf`), or null (none).
 * `target`: what its sequence is a sequence of (lib/sync/target-mark.ts), null when no mark says.
 */
async function showState(alfHome: string, agentId: string) {
  const paths = statePaths(alfHome, agentId);
  const state = await readClientState(alfHome, agentId).catch(() => null);
  // The store is the layout when a sync would take it as the base (open-store.ts `storeHolds`): a
  // `.alf` the reference CLI wrote since (its sync, restore, or first sync after `alf purge`) is the base.
  const indexFile = storePaths(paths.dir, agentId).index;
  const [read, alf] = await Promise.all([readIndex(indexFile).catch(() => null), baseIdentity(paths.snapshot)]);
  const storeIsBase = read !== null && state !== null && storeHolds(state, read.index, alf) !== 'none';
  const layout = storeIsBase ? 'store' : alf !== null ? 'alf' : existsSync(indexFile) ? 'store' : null;
  return {
    ok: true as const,
    agent_id: agentId,
    state_dir: paths.dir,
    last_synced_sequence: state?.last_synced_sequence ?? null,
    last_synced_at: state?.last_synced_at ?? null,
    layout,
    target: readTargetMark(alfHome, agentId),
  };
}
