/**
 * The order of a search's appearances, the same on every backend: oldest first (sync time, then
 * sequence), ties broken by entry kind, agent and record in localeCompare's order. A page needs only
 * the first `1 + offset + limit` of them and each agent's first appearance, so a broad query's
 * thousands of hits are selected, not sorted.
 */
import type { HitMeta } from './candidates';

// localeCompare's order (ECMA-402: as a collator made with the same arguments), made once.
const collator = new Intl.Collator();
// Strings of these characters only have no case or accent levels, and their primary order (the
// punctuation `-`, then digits, then letters) is their code unit order: the collator's answer.
const PLAIN = /^[0-9a-z-]*$/;

const plainOrder = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** The comparator for `hits`: ids (UUIDs) and entry kinds are plain lowercase, compared by code units without the collator's cost. */
export function appearanceOrder(hits: readonly HitMeta[]): (a: HitMeta, b: HitMeta) => number {
  const text = hits.every((h) => PLAIN.test(h.entry_kind) && PLAIN.test(h.agent_id) && PLAIN.test(h.record_id)) ? plainOrder : collator.compare;
  return (a, b) => (a.synced_at < b.synced_at ? -1 : a.synced_at > b.synced_at ? 1 : 0) || a.seq - b.seq
    || text(a.entry_kind, b.entry_kind) || text(a.agent_id, b.agent_id) || text(a.record_id, b.record_id);
}

/** The first `count` hits in order, and every agent in the order of its first appearance. */
export function firstAppearances<T extends HitMeta>(hits: readonly T[], count: number): { head: T[]; agents: string[] } {
  const compare = appearanceOrder(hits);
  const firstOf = new Map<string, T>();
  for (const h of hits) {
    const seen = firstOf.get(h.agent_id);
    if (!seen || compare(h, seen) < 0) firstOf.set(h.agent_id, h);
  }
  const agents = [...firstOf.values()].sort(compare).map((h) => h.agent_id);
  if (count >= hits.length / 8) return { head: [...hits].sort(compare).slice(0, count), agents };
  // Kept sorted; a hit after the last kept one costs one comparison.
  const head: T[] = [];
  for (const h of hits) {
    if (head.length === count && compare(h, head[count - 1]!) >= 0) continue;
    let lo = 0;
    let hi = head.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(head[mid]!, h) <= 0) lo = mid + 1;
      else hi = mid;
    }
    head.splice(lo, 0, h);
    if (head.length > count) head.pop();
  }
  return { head, agents };
}
