import { foldSnapshot } from '@/lib/core/restore';
import type { JsonObject } from '@/lib/core/json';
import type { AgentRow } from '@/lib/ledger/agents';
import type { LineageStorage } from '@/lib/storage/types';
import type { LayerCounts } from '@/lib/client/types';

type Layers = { identity?: JsonObject; principals?: JsonObject; credentials?: JsonObject };

// Counts only change when the sequence does; a few hundred agents per storage fit easily.
const caches = new WeakMap<LineageStorage, Map<string, LayerCounts>>();
const CACHE_LIMIT = 1000;

function arrayLength(doc: JsonObject | undefined, key: string): number {
  const value = doc?.[key];
  return Array.isArray(value) ? value.length : 0;
}

function count(layers: Layers): LayerCounts {
  return {
    credentials: arrayLength(layers.credentials, 'credentials'),
    principals: arrayLength(layers.principals, 'principals'),
    identity: layers.identity ? 1 : 0,
  };
}

/**
 * `layer_counts` of AgentInfo: identity/principals/credentials of the restore fold at the latest
 * sequence (a later delta's full document replaces the snapshot's, §3.2).
 */
export async function layerCountsOf(storage: LineageStorage, agent: AgentRow): Promise<LayerCounts> {
  if (agent.latest_sequence === null || agent.latest_snapshot_seq === null) return { credentials: 0, principals: 0, identity: 0 };
  let cache = caches.get(storage);
  if (!cache) caches.set(storage, (cache = new Map()));
  const key = `${agent.id}:${agent.latest_sequence}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const plan = await storage.restorePlan({ agentId: agent.id });
  const layers: Layers = foldSnapshot({ ...(await storage.readPlanArchives({ plan })), now: new Date(0) }).layers;
  const counts = count(layers);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, counts);
  return counts;
}
