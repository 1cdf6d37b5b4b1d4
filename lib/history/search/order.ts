/**
 * The order of a search's appearances, the same on every backend: oldest first (sync time, then
 * sequence), ties broken by entry kind, agent and record in localeCompare's order. A page needs only
 * the first `1 + offset + limit` of them and each agent's first appearance, so a broad query's
 * thousands of hits are selected, not sorted.
 */
import { firstInOrder } from '../queries/first-in-order';
import type { HitMeta } from './candidates';

// localeCompare's order (ECMA-402: as a collator made with the same arguments), made once.
const collator = new Intl.Collator();
// Strings of these characters only have no case or accent levels, and their primary order (the
// punctuation `-`, then digits, then letters) is their code unit order: the collator's answer.
const PLAIN = /^[0-9a-z-]*$/;

/**
 * localeCompare's answer for two strings. Asked only on ties of time and sequence, so the ids
 * (UUIDs) and entry kinds are checked there, pair by pair, rather than every hit's up front; equal
 * strings are equal for both, and plain ones are compared by code units without the collator's cost.
 */
function textOrder(x: string, y: string): number {
  if (x === y) return 0;
  return PLAIN.test(x) && PLAIN.test(y) ? (x < y ? -1 : 1) : collator.compare(x, y);
}

/** Oldest first (sync time, then sequence), ties broken by entry kind, agent and record. */
export function appearanceOrder(a: HitMeta, b: HitMeta): number {
  return (a.synced_at < b.synced_at ? -1 : a.synced_at > b.synced_at ? 1 : 0) || a.seq - b.seq
    || textOrder(a.entry_kind, b.entry_kind) || textOrder(a.agent_id, b.agent_id) || textOrder(a.record_id, b.record_id);
}

/** Hits grouped by agent, each group in hit order. */
export function groupByAgent<T extends HitMeta>(hits: readonly T[]): Map<string, T[]> {
  const byAgent = new Map<string, T[]>();
  // Hits come in runs of one agent (rows of one sync): a run costs a string comparison, not a hash.
  let run: T[] | undefined;
  let runAgent: string | undefined;
  for (const h of hits) {
    if (h.agent_id !== runAgent) {
      runAgent = h.agent_id;
      run = byAgent.get(runAgent);
      if (!run) byAgent.set(runAgent, (run = []));
    }
    run!.push(h);
  }
  return byAgent;
}

/**
 * The first `count` hits in order, and every agent in the order of its first appearance (from
 * `byAgent`, the hits grouped by agent, when the caller has it).
 */
export function firstAppearances<T extends HitMeta>(hits: readonly T[], count: number, byAgent: ReadonlyMap<string, readonly T[]> = groupByAgent(hits)): { head: T[]; agents: string[] } {
  const compare = appearanceOrder;
  const firsts: T[] = [];
  for (const mine of byAgent.values()) {
    let first = mine[0]!;
    for (const h of mine) if (compare(h, first) < 0) first = h;
    firsts.push(first);
  }
  const agents = firsts.sort(compare).map((h) => h.agent_id);
  if (count >= hits.length / 8) return { head: [...hits].sort(compare).slice(0, count), agents };
  return { head: firstInOrder(hits, count, compare), agents };
}
