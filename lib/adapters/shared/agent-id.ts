import { access, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { workspaceAgentId } from '@/lib/core/ids';
import { parseUuid } from '@/lib/core/uuid';
import type { Runtime } from '../types';
import { notWritable, readControlFile } from './errors';
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
  if (args.persist) await writeAgentIdFile(args.workspace, minted);
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
  await writeAgentIdFile(target, agentId);
  return true;
}

/**
 * Writes `<dir>/.alf-agent-id` (the id, no newline) under a temporary name, then renames it into
 * place: a sync that reads it meanwhile (another process's) finds the old id or the new one,
 * never an empty or half-written file, which it would refuse as `agent_id_invalid`.
 */
export async function writeAgentIdFile(dir: string, agentId: string): Promise<void> {
  const file = path.join(dir, AGENT_ID_FILE);
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  try {
    await writeFile(tmp, agentId, 'utf8');
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw notWritable(file, "the agent's id", error) ?? error;
  }
}

export async function pathExists(abs: string): Promise<boolean> {
  try {
    await access(abs);
    return true;
  } catch {
    return false;
  }
}
