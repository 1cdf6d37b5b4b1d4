import type { Command } from 'commander';
import { readOrMintAgentId } from '@/lib/adapters/shared/agent-id';
import { parseUuid } from '@/lib/core/uuid';
import { alfDir } from '@/lib/sync/state';
import { exportStateBase } from '@/lib/sync/state-export';
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
}
