import path from 'node:path';
import { identityId, principalId, principalProfileId } from '@/lib/core/ids';
import type { JsonObject } from '@/lib/core/json';
import { humanPrincipal, restoredLayerTimes, type LayerFiles } from '../shared/restore-layer-times';

/** Root prose files read for the identity and principal layers, with their text and mtime. */
export type ProseFiles = Partial<Record<string, { text: string; mtime: string }>>;

const IDENTITY_PROSE: Record<string, string> = {
  'SOUL.md': 'soul',
  'IDENTITY.md': 'identity_profile',
  'AGENTS.md': 'operating_instructions',
};
const CUSTOM_BLOCKS: Record<string, string> = {
  'TOOLS.md': 'tools_guidance',
  'HEARTBEAT.md': 'heartbeat_checklist',
  'BOOTSTRAP.md': 'boot_checklist',
};

/**
 * The agent's display name: the `Name:` line of IDENTITY.md (`Name: Atlas`,
 * `**Name:** Atlas`, `- Name: Atlas`), else the workspace directory's name. The
 * reference's exact rule is not in the contract; this one is deterministic and
 * matches how OpenClaw identity files are written.
 */
export function agentName(workspace: string, identityText: string | undefined): string {
  for (const line of (identityText ?? '').split('\n')) {
    const match = /^\s*(?:[-*]\s+)?name\s*:\s*(.+)$/i.exec(line.replace(/\*\*|__/g, ''));
    const name = match?.[1]?.trim();
    if (name) return name;
  }
  return path.basename(path.resolve(workspace));
}

/**
 * Identity layer (Layer 2) from SOUL/IDENTITY/AGENTS prose plus TOOLS/HEARTBEAT/BOOTSTRAP
 * custom blocks; null when none of SOUL/IDENTITY/AGENTS exists. `updated_at` is the newest
 * source mtime so the document is deterministic.
 */
export function identityLayer(agentId: string, files: ProseFiles, updatedAt: string | null): JsonObject | null {
  const prose: JsonObject = {};
  for (const [file, key] of Object.entries(IDENTITY_PROSE)) {
    const text = files[file]?.text;
    if (text !== undefined) prose[key] = text;
  }
  if (Object.keys(prose).length === 0 || updatedAt === null) return null;
  const custom: JsonObject = {};
  for (const [file, key] of Object.entries(CUSTOM_BLOCKS)) {
    const text = files[file]?.text;
    if (text !== undefined) custom[key] = text;
  }
  if (Object.keys(custom).length > 0) prose.custom_blocks = custom;
  return { id: identityId(agentId), agent_id: agentId, version: 1, updated_at: updatedAt, prose, source_format: 'openclaw' };
}

/** Principals layer (Layer 3): one human principal whose profile prose is USER.md. */
export function principalsLayer(agentId: string, files: ProseFiles): JsonObject | null {
  const user = files['USER.md'];
  if (!user) return null;
  const id = principalId(agentId, 'human');
  const profile: JsonObject = {
    id: principalProfileId(id),
    agent_id: agentId,
    principal_id: id,
    version: 1,
    updated_at: user.mtime,
    prose: { user_profile: user.text },
    source_format: 'openclaw',
  };
  return { principals: [{ id, principal_type: 'human', agent_id: null, profile }] };
}

/** Identity/principal prose back to root files, for a restore without raw files (CONTRACT §6 step 5). */
export function proseFilesFromLayers(layers: { identity?: JsonObject; principals?: JsonObject }): Map<string, string> {
  const out = new Map<string, string>();
  const prose = asObject(layers.identity?.prose);
  for (const [file, key] of Object.entries(IDENTITY_PROSE)) putString(out, file, prose?.[key]);
  const custom = asObject(prose?.custom_blocks);
  for (const [file, key] of Object.entries(CUSTOM_BLOCKS)) putString(out, file, custom?.[key]);
  putString(out, 'USER.md', asObject(asObject(humanPrincipal(layers.principals)?.profile)?.prose)?.user_profile);
  return out;
}

/**
 * The layer time each written prose file gets back (`setLayerTimes`, `restoredLayerTimes`): the
 * identity's `updated_at` for SOUL/IDENTITY/AGENTS/TOOLS/HEARTBEAT/BOOTSTRAP.md, the human
 * principal's `profile.updated_at` for USER.md — each only when the file written holds exactly that
 * layer's prose, so the layers read back from the restored workspace are the snapshot's (its
 * identity `updated_at` is the newest of those files' mtimes).
 */
export function proseFileTimes(layers: { identity?: JsonObject; principals?: JsonObject }, files: ReadonlyMap<string, Uint8Array>): Map<string, string> {
  return restoredLayerTimes(layers, files, LAYER_FILES);
}

/** Where the layers' prose is written (proseFilesFromLayers). */
const LAYER_FILES: LayerFiles = {
  identity: [
    ...Object.entries(IDENTITY_PROSE).map(([file, key]) => [file, [key]] as const),
    ...Object.entries(CUSTOM_BLOCKS).map(([file, key]) => [file, ['custom_blocks', key]] as const),
  ],
  user: 'USER.md',
};

function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function putString(out: Map<string, string>, file: string, value: unknown): void {
  if (typeof value === 'string' && value.length > 0) out.set(file, value);
}
