import path from 'node:path';
import { SYNCED_MARKER_FILE } from '@/lib/adapters/shared';
import { notAFile, notWritable } from '@/lib/adapters/shared/errors';
import { isJsonObject, type JsonObject } from '@/lib/core/json';
import { readSmallFile, writeFileAtomic } from './state';

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
    const doc: unknown = JSON.parse(readSmallFile(path.join(workspace, SYNCED_MARKER_FILE)) ?? '');
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
  const doc: JsonObject = { ...marker, agents };
  if (previous && isJsonObject(previous.sent)) doc.sent = previous.sent;
  await writeMarker(workspace, doc);
}

/**
 * What a sync uploaded last, per agent: the sha256 of the blob and the sequence it was cut from
 * (null for a first snapshot). Recorded in the workspace before the upload is sent, and kept after
 * it is acknowledged: if the client state is then lost or rolled back (a kill before it was
 * written, a full disk, a restored copy of `$ALF_HOME/.alf`), a target whose next entry is that
 * very blob is this machine's own upload, and the next sync adopts it (recover.ts).
 */
export interface SentUpload {
  base_sequence: number | null;
  sha256: string;
}

export async function readSent(workspace: string, agentId: string): Promise<SentUpload | null> {
  const doc = await readMarker(workspace);
  const sent = doc && isJsonObject(doc.sent) ? doc.sent[agentId] : undefined;
  if (!isJsonObject(sent) || typeof sent.sha256 !== 'string') return null;
  const base = sent.base_sequence;
  return { base_sequence: typeof base === 'number' ? base : null, sha256: sent.sha256 };
}

/** Records `sent` for `agentId`, leaving the rest of the marker as it is; durable before the upload. */
export async function writeSent(workspace: string, agentId: string, sent: SentUpload): Promise<void> {
  const doc: JsonObject = (await readMarker(workspace)) ?? {};
  doc.sent = { ...(isJsonObject(doc.sent) ? doc.sent : {}), [agentId]: { base_sequence: sent.base_sequence, sha256: sent.sha256 } };
  await writeMarker(workspace, doc);
}

/** The marker written whole, by rename: a directory of its name (which a rename cannot replace) is the user's to move. */
async function writeMarker(workspace: string, doc: JsonObject): Promise<void> {
  const file = path.join(workspace, SYNCED_MARKER_FILE);
  await writeFileAtomic(file, Buffer.from(JSON.stringify(doc, null, 2) + '\n')).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    throw code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST' ? notAFile(file, 'what the workspace was last synced from') : (notWritable(file, 'what the workspace was last synced from', error) ?? error);
  });
}
