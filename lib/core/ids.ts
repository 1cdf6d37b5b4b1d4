import { rustTrimEnd } from './rust-str';
import { namespaceFromBytes, sha256Hex, uuidV5, type Uuid } from './uuid';

/** Namespaces of CONTRACT §4.2 and §2.4, as the 16 ASCII bytes the reference uses. */
export const NS = {
  openclaw: namespaceFromBytes('openclaw-alf-ns1'),
  zeroclaw: namespaceFromBytes('zeroclaw-alf-ns1'),
  generic: namespaceFromBytes('generic-alf-ns01'),
  alf: namespaceFromBytes('alf-id-ns-v5-001'),
  openclawAgent: namespaceFromBytes('alf-agent-id-ns1'),
  zeroclawAgent: namespaceFromBytes('alf-zclw-agent-1'),
  hermesAgent: namespaceFromBytes('alf-hrms-agent-1'),
} as const;

export type TextRuntime = 'openclaw' | 'zeroclaw' | 'generic';

/**
 * Birth id of a text chunk: `content-v1:{agent}:{file}:{sha256(trim_end(content))}:{occurrence}`
 * where occurrence counts earlier sections of the same file with identical trimmed content.
 */
export function chunkBirthId(args: {
  runtime: TextRuntime;
  agentId: string;
  originFile: string;
  content: string;
  occurrence: number;
}): Uuid {
  return birthIdOfTrimmed(args.runtime, args.agentId, args.originFile, rustTrimEnd(args.content), args.occurrence);
}

/** Birth id of a chunk whose content is trimmed already (see chunkBirthId). */
export function birthIdOfTrimmed(runtime: TextRuntime, agentId: string, originFile: string, trimmed: string, occurrence: number): Uuid {
  return uuidV5(NS[runtime], `content-v1:${agentId}:${originFile}:${sha256Hex(trimmed)}:${occurrence}`);
}

/**
 * Each section's trimmed content and occurrence: how many earlier sections of the same file
 * have identical trimmed content (the occurrence rule of the birth id).
 */
export function chunkOccurrences(contents: readonly string[]): { trimmed: string; occurrence: number }[] {
  const seen = new Map<string, number>();
  return contents.map((content) => {
    const trimmed = rustTrimEnd(content);
    const occurrence = seen.get(trimmed) ?? 0;
    seen.set(trimmed, occurrence + 1);
    return { trimmed, occurrence };
  });
}

/**
 * Assigns birth ids to the sections of one file in order, applying the occurrence rule
 * (counted over the full section list of that file).
 */
export function chunkBirthIds(args: {
  runtime: TextRuntime;
  agentId: string;
  originFile: string;
  contents: readonly string[];
}): Uuid[] {
  return chunkOccurrences(args.contents).map(({ trimmed, occurrence }) => birthIdOfTrimmed(args.runtime, args.agentId, args.originFile, trimmed, occurrence));
}

/** Re-mint id for a reconcile collision; `taken` answers whether a candidate is in use. */
export function remintId(args: {
  agentId: string;
  scope: string;
  content: string;
  taken: (id: string) => boolean;
}): Uuid {
  const digest = sha256Hex(args.content);
  for (let k = 1; ; k++) {
    const id = uuidV5(NS.alf, `reconcile-remint:${args.agentId}:${args.scope}:${digest}:${k}`);
    if (!args.taken(id)) return id;
  }
}

export const identityId = (agentId: string): Uuid => uuidV5(NS.alf, `identity:${agentId}`);
export const principalId = (agentId: string, role: string): Uuid => uuidV5(NS.alf, `principal:${agentId}:${role}`);
export const principalProfileId = (principal: string): Uuid => uuidV5(NS.alf, `profile:${principal}`);
export const hermesSessionId = (nativeId: string): Uuid => uuidV5(NS.alf, `hermes-session:${nativeId}`);

/** Hermes curated entry id; occurrence 0 has no suffix. */
export function hermesCuratedId(entry: string, occurrence: number): Uuid {
  return uuidV5(NS.alf, occurrence === 0 ? `hermes-curated:${entry}` : `hermes-curated:${entry}:${occurrence}`);
}

/** Agent id derived from the canonical workspace path when `.alf-agent-id` is absent (§2.4). */
export function workspaceAgentId(runtime: 'openclaw' | 'zeroclaw' | 'hermes', canonicalPath: string): Uuid {
  const ns = runtime === 'openclaw' ? NS.openclawAgent : runtime === 'zeroclaw' ? NS.zeroclawAgent : NS.hermesAgent;
  return uuidV5(ns, canonicalPath);
}
