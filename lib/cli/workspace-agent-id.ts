import { existsSync } from 'node:fs';
import { readOrMintAgentId } from '@/lib/adapters/shared/agent-id';
import type { Runtime } from '@/lib/adapters/types';
import { zeroclawAlfAgentId } from '@/lib/adapters/zeroclaw';
import { CliError } from './output';

/**
 * The agent a live workspace was synced as, as its sync computes it: the workspace's
 * `.alf-agent-id` — except for a ZeroClaw alias other than the database's first agent, whose id
 * is derived from the workspace and the alias. Read only (nothing minted is written). What
 * `restore -w` and `state show`/`state export -w` find the agent by.
 */
export async function workspaceAgentId(runtime: Runtime, workspace: string, runtimeAgent: string | undefined): Promise<string> {
  if (!existsSync(workspace)) {
    throw new CliError('agent_not_found', `there is no workspace at ${workspace} to read an agent id from`, 'name the agent with --agent ID (a restore with -w then makes the workspace)');
  }
  if (runtime === 'zeroclaw') {
    const id = await zeroclawAlfAgentId(workspace, runtimeAgent);
    if (id !== null) return id;
    if (runtimeAgent !== undefined) {
      throw new CliError('agent_not_found', `the workspace has no brain.db to find --runtime-agent ${JSON.stringify(runtimeAgent)} in`, 'name the agent with --agent ID');
    }
  }
  return readOrMintAgentId({ workspace, runtime, persist: false });
}
