import fs from 'node:fs/promises';
import path from 'node:path';
import { SYNCED_MARKER_FILE } from '@/lib/adapters/shared';
import { isJsonObject, type JsonObject } from '@/lib/core/json';
import { writeFileAtomic } from './state';

/** What a workspace was last synced or restored from (`WS/.alf-synced.json`). */
export interface SyncedFrom {
  agent_id: string;
  sequence: number;
  synced_at: string;
}

/**
 * The marker's top level is the most recent sync; `agents` keeps one entry per agent, because
 * one ZeroClaw workspace (a shared brain.db) holds several agents that sync independently.
 */
async function readMarker(workspace: string): Promise<JsonObject | null> {
  try {
    const doc: unknown = JSON.parse(await fs.readFile(path.join(workspace, SYNCED_MARKER_FILE), 'utf8'));
    return isJsonObject(doc) ? doc : null;
  } catch {
    // A missing or unreadable marker means "no record of what this was synced from".
    return null;
  }
}

function asSyncedFrom(agentId: string, value: unknown): SyncedFrom | null {
  if (!isJsonObject(value) || typeof value.sequence !== 'number' || typeof value.synced_at !== 'string') return null;
  return { agent_id: agentId, sequence: value.sequence, synced_at: value.synced_at };
}

/** What the workspace was last synced from, for `agentId` when given (else the most recent sync). */
export async function readSyncedFrom(workspace: string, agentId?: string): Promise<SyncedFrom | null> {
  const doc = await readMarker(workspace);
  if (!doc || typeof doc.agent_id !== 'string') return null;
  if (agentId === undefined || doc.agent_id === agentId) return asSyncedFrom(doc.agent_id, doc);
  const agents = isJsonObject(doc.agents) ? doc.agents : {};
  return Object.prototype.hasOwnProperty.call(agents, agentId) ? asSyncedFrom(agentId, agents[agentId]) : null;
}

export async function writeSyncedFrom(workspace: string, marker: SyncedFrom): Promise<void> {
  const previous = await readMarker(workspace);
  const agents: JsonObject = previous && isJsonObject(previous.agents) ? { ...previous.agents } : {};
  if (previous && typeof previous.agent_id === 'string' && typeof previous.sequence === 'number') {
    agents[previous.agent_id] = { sequence: previous.sequence, synced_at: previous.synced_at };
  }
  agents[marker.agent_id] = { sequence: marker.sequence, synced_at: marker.synced_at };
  const doc = { ...marker, agents };
  await writeFileAtomic(path.join(workspace, SYNCED_MARKER_FILE), Buffer.from(JSON.stringify(doc, null, 2) + '\n'));
}
