import { describe, expect, it } from 'vitest';
import { prng } from '@/lib/core/prng';
import type { VersionHit } from './candidates';
import { firstAppearances } from './order';

const rand = prng(20);
const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;

/** Many ties on time and sequence; ids plain (UUID-like) or not (case, accents), which takes the collator. */
function hits(n: number, ids: readonly string[]): VersionHit[] {
  return Array.from({ length: n }, (_, i) => ({
    id: i, agent_id: pick(ids), record_id: pick(ids), seq: Math.floor(rand() * 3), entry_kind: pick(['delta', 'snapshot']), op: 'create',
    synced_at: `2026-11-0${1 + Math.floor(rand() * 3)}T00:00:00.000Z`, origin_file: null, content: '',
  }));
}

// The order written out as the engine once wrote it: a full sort with localeCompare.
const fullSort = (xs: VersionHit[]) => [...xs].sort((a, b) => (a.synced_at < b.synced_at ? -1 : a.synced_at > b.synced_at ? 1 : 0)
  || a.seq - b.seq || a.entry_kind.localeCompare(b.entry_kind) || a.agent_id.localeCompare(b.agent_id) || a.record_id.localeCompare(b.record_id));

describe('firstAppearances', () => {
  for (const [kind, ids] of [
    ['plain ids', ['0a-1', '0a-2', 'b3-00', 'b3-0', 'ff', '9-9', 'a']],
    ['ids the collator orders differently from code units', ['aB', 'Ab', 'ab', 'é', 'e', 'E', 'Z', '_x', '-y']],
  ] as const) {
    it(`selects the same first hits and agent order as a full localeCompare sort (${kind})`, () => {
      for (let round = 0; round < 50; round++) {
        const xs = hits(1 + Math.floor(rand() * 400), ids);
        const sorted = fullSort(xs);
        const count = 1 + Math.floor(rand() * 60);
        const { head, agents } = firstAppearances(xs, count);
        expect(head.map((h) => h.id)).toEqual(sorted.slice(0, count).map((h) => h.id));
        expect(agents).toEqual([...new Set(sorted.map((h) => h.agent_id))]);
      }
    });
  }
});
