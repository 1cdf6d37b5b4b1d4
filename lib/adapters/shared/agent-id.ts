import { access, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { workspaceAgentId } from '@/lib/core/ids';
import { parseUuid } from '@/lib/core/uuid';
import type { Runtime } from '../types';
import { readControlFile } from './errors';
import { AGENT_ID_FILE } from './sync-marker';

/** Thrown when `.alf-agent-id` exists but does not hold a UUID. */
export class AgentIdError extends Error {
  readonly code = 'agent_id_invalid';

  constructor(message: string) {
    super(message);
    this.name = 'AgentIdError';
  }
}

/**
 * Resolves the agent id of a workspace (CONTRACT §2.4): the trimmed content of
 * `<workspace>/.alf-agent-id` when present (must be a UUID), else the UUIDv5 of the
 * canonical workspace path in the runtime's namespace, written back (no trailing
 * newline) when `persist` is set. Dry runs pass `persist: false` and write nothing.
 */
export async function readOrMintAgentId(args: {
  workspace: string;
  runtime: Runtime;
  persist: boolean;
}): Promise<string> {
  const file = path.join(args.workspace, AGENT_ID_FILE);
  const existing = readControlFile(file, "the workspace's agent id");
  if (existing !== null) {
    const id = parseUuid(existing);
    if (id === null) {
      throw new AgentIdError(`${file} must hold a UUID, found ${JSON.stringify(existing.trim().slice(0, 80))}`);
    }
    return id;
  }
  const canonical = await realpath(args.workspace);
  const minted = workspaceAgentId(args.runtime, canonical);
  if (args.persist) await writeFile(file, minted, 'utf8');
  return minted;
}

/**
 * Writes `<target>/.alf-agent-id` (no trailing newline) when it is absent. When it exists and
 * names another agent it is kept, with a warning: a restore never re-labels a workspace.
 */
export async function writeAgentIdIfAbsent(target: string, agentId: string, warnings: string[]): Promise<boolean> {
  const file = path.join(target, AGENT_ID_FILE);
  const existing = readControlFile(file, "the workspace's agent id");
  if (existing !== null) {
    const current = existing.trim();
    if (current !== agentId) warnings.push(`${AGENT_ID_FILE} holds ${current}, not the restored agent ${agentId}; left unchanged`);
    return false;
  }
  await writeFile(file, agentId, 'utf8');
  return true;
}

export async function pathExists(abs: string): Promise<boolean> {
  try {
    await access(abs);
    return true;
  } catch {
    return false;
  }
}
