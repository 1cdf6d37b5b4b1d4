import path from 'node:path';
import { identityId, principalId, principalProfileId } from '@/lib/core/ids';
import type { JsonObject } from '@/lib/core/json';
import { restoredLayerTimes } from '@/lib/adapters/shared/restore-layer-times';
import { fileMtime } from './curated';

/** Workspace-relative path of Hermes' notes about its user. */
export const USER_FILE = 'memories/USER.md';
export const SOUL_FILE = 'SOUL.md';

/**
 * Identity layer from SOUL.md: version 1, `updated_at` = the file's mtime (so an
 * untouched file compares equal across syncs), the prose verbatim.
 */
export async function identityLayer(home: string, agentId: string, soul: string): Promise<JsonObject> {
  return {
    id: identityId(agentId),
    agent_id: agentId,
    version: 1,
    updated_at: await fileMtime(path.join(home, SOUL_FILE)),
    prose: { soul },
    source_format: 'hermes',
  };
}

/** Principals layer from memories/USER.md: the one human principal, its profile prose verbatim. */
export async function principalsLayer(home: string, agentId: string, userProfile: string): Promise<JsonObject> {
  const principal = principalId(agentId, 'human');
  return {
    principals: [
      {
        id: principal,
        principal_type: 'human',
        agent_id: null,
        profile: {
          id: principalProfileId(principal),
          agent_id: agentId,
          principal_id: principal,
          version: 1,
          updated_at: await fileMtime(path.join(home, ...USER_FILE.split('/'))),
          prose: { user_profile: userProfile },
          source_format: 'hermes',
        },
      },
    ],
  };
}

/**
 * The layer time each written file gets back (`setLayerTimes`, `restoredLayerTimes`): SOUL.md the
 * identity's `updated_at`, memories/USER.md the human principal's `profile.updated_at` — each only
 * when the file written holds exactly that layer's prose — so the layers read back from the
 * restored home are the snapshot's.
 */
export function layerFileTimes(layers: { identity?: JsonObject; principals?: JsonObject }, files: ReadonlyMap<string, Uint8Array>): Map<string, string> {
  return restoredLayerTimes(layers, files, { identity: [[SOUL_FILE, ['soul']]], user: USER_FILE });
}
