import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { readOrMintAgentId } from '@/lib/adapters/shared/agent-id';
import { parseUuid } from '@/lib/core/uuid';
import { alfDir, statePaths } from '@/lib/sync/state';
import { withAgentLock } from '@/lib/sync/agent-lock';
import { exportStateBase } from '@/lib/sync/state-export';
import { compactStopPoint, compactStore } from '@/lib/sync/store/compact';
import { parseRuntime } from '../parse-options';
import { CliError, printJson } from '../output';

/**
 * `lineage state export`: writes `$ALF_HOME/.alf/state/{agent}-snapshot.alf`, the base the reference
 * CLI reads, from this machine's client state (lib/sync/state-export.ts). Run it before handing a
 * workspace synced with the store layout to the reference CLI.
 */
export function registerStateCommand(program: Command): void {
  const state = program.command('state').description("this machine's sync state of an agent (under ALF_HOME)");
  state
    .command('export')
    .description("write the agent's base .alf where the reference CLI reads it ($ALF_HOME/.alf/state/{agent}-snapshot.alf)")
    .option('-w, --workspace <dir>', 'the synced workspace (its agent id)')
    .option('-r, --runtime <runtime>', 'openclaw | zeroclaw | hermes', 'openclaw')
    .option('--agent <id>', 'ALF agent id (default: the workspace .alf-agent-id)')
    .exitOverride()
    .action(async (flags: { workspace?: string; runtime?: string; agent?: string }) => {
      const agentId = flags.agent ?? (flags.workspace ? await readOrMintAgentId({ workspace: flags.workspace, runtime: parseRuntime(flags.runtime), persist: false }) : undefined);
      if (!agentId) throw new CliError('invalid_argument', 'state export needs -w WORKSPACE or --agent ID');
      const id = parseUuid(agentId);
      if (id === null) throw new CliError('invalid_argument', `--agent must be a UUID, got "${agentId}"`);
      printJson(await exportStateBase({ alfHome: alfDir(), agentId: id }));
    });
  state
    .command('compact')
    .description("rewrite the agent's client-state log holding only what is live, when it holds more dead bytes than live ones (a sync starts this in the background)")
    .option('-w, --workspace <dir>', 'the synced workspace (its agent id)')
    .option('--agent <id>', 'ALF agent id (default: the workspace .alf-agent-id)')
    .option('--force', 'compact even when the log holds fewer dead bytes than live ones', false)
    .addOption(new Option('--alf-dir <dir>', 'the .alf directory (default: $ALF_HOME/.alf)').hideHelp())
    .exitOverride()
    .action(async (flags: { workspace?: string; agent?: string; force?: boolean; alfDir?: string }) => {
      const agentId = flags.agent ?? (flags.workspace ? await readOrMintAgentId({ workspace: flags.workspace, runtime: 'openclaw', persist: false }) : undefined);
      if (!agentId) throw new CliError('invalid_argument', 'state compact needs -w WORKSPACE or --agent ID');
      const id = parseUuid(agentId);
      if (id === null) throw new CliError('invalid_argument', `--agent must be a UUID, got "${agentId}"`);
      const alfHome = flags.alfDir ?? alfDir();
      // No state directory: nothing to compact, and nothing is written (not even a lock).
      if (!existsSync(statePaths(alfHome, id).dir)) return printJson(await compactStore({ alfHome, agentId: id }));
      compactStopPoint('started');
      printJson(await withAgentLock({ alfHome, key: id, what: `agent ${id}` }, async () => {
        compactStopPoint('locked');
        return compactStore({ alfHome, agentId: id, force: flags.force });
      }));
    });
}
