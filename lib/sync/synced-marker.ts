import fs from 'node:fs/promises';
import path from 'node:path';
import { SYNCED_MARKER_FILE } from '@/lib/adapters/shared';
import { isJsonObject } from '@/lib/core/json';
import { writeFileAtomic } from './state';

/** What a workspace was last synced or restored from (`WS/.alf-synced.json`). */
export interface SyncedFrom {
  agent_id: string;
  sequence: number;
  synced_at: string;
}

export async function readSyncedFrom(workspace: string): Promise<SyncedFrom | null> {
  try {
    const doc: unknown = JSON.parse(await fs.readFile(path.join(workspace, SYNCED_MARKER_FILE), 'utf8'));
    if (isJsonObject(doc) && typeof doc.agent_id === 'string' && typeof doc.sequence === 'number' && typeof doc.synced_at === 'string') {
      return { agent_id: doc.agent_id, sequence: doc.sequence, synced_at: doc.synced_at };
    }
  } catch {
    // A missing or unreadable marker means "no record of what this was synced from".
  }
  return null;
}

export async function writeSyncedFrom(workspace: string, marker: SyncedFrom): Promise<void> {
  await writeFileAtomic(path.join(workspace, SYNCED_MARKER_FILE), Buffer.from(JSON.stringify(marker, null, 2) + '\n'));
}
