import { describe, expect, it } from 'vitest';
import { remintId } from './ids';
import { prng } from './prng';
import { recordScope, type MemoryRecord } from './record';
import { carryBirth, carryIdentity, headingKey, reconcile, type ReconcileStats } from './reconcile';
import { rustTrimEnd } from './rust-str';

/** The passes as first written (concatenated keys, Array.shift queues): the behaviour to keep. */
function referenceReconcile(args: { agentId: string; prev: readonly MemoryRecord[]; curr: readonly MemoryRecord[] }): { records: MemoryRecord[]; stats: ReconcileStats } {
  const { agentId, prev, curr } = args;
  const out: (MemoryRecord | undefined)[] = new Array(curr.length);
  const prevUsed = new Array<boolean>(prev.length).fill(false);
  const stats: ReconcileStats = { carried: 0, heading_matched: 0, id_matched: 0, created: 0, deleted: 0, reminted: 0 };

  const pass = (
    keyOf: (r: MemoryRecord) => string | null,
    build: (p: MemoryRecord, c: MemoryRecord) => MemoryRecord,
    counter: keyof ReconcileStats,
  ): void => {
    const queues = new Map<string, number[]>();
    prev.forEach((p, i) => {
      if (prevUsed[i]) return;
      const key = keyOf(p);
      if (key === null) return;
      const queue = queues.get(key);
      if (queue) queue.push(i);
      else queues.set(key, [i]);
    });
    curr.forEach((c, j) => {
      if (out[j]) return;
      const key = keyOf(c);
      if (key === null) return;
      const i = queues.get(key)?.shift();
      if (i === undefined) return;
      prevUsed[i] = true;
      out[j] = build(prev[i]!, c);
      stats[counter]++;
    });
  };

  // Keys are length-prefixed so that no two different (part, part) pairs can collide.
  const trimmedCache = new Map<MemoryRecord, string>();
  const trimmed = (r: MemoryRecord) => {
    let t = trimmedCache.get(r);
    if (t === undefined) trimmedCache.set(r, (t = rustTrimEnd(r.content)));
    return t;
  };
  const pair = (a: string, b: string) => `${a.length}:${a}${b}`;
  pass((r) => pair(r.id, trimmed(r)), carryIdentity, 'carried');
  pass((r) => pair(recordScope(r), trimmed(r)), carryIdentity, 'carried');
  pass((r) => {
    const heading = headingKey(r);
    return heading === null ? null : pair(recordScope(r), heading);
  }, carryBirth, 'heading_matched');
  pass((r) => r.id, carryBirth, 'id_matched');

  const taken = new Set<string>(prev.map((p) => p.id));
  for (const r of out) if (r) taken.add(r.id);
  curr.forEach((c, j) => {
    if (out[j]) return;
    stats.created++;
    if (!taken.has(c.id)) {
      out[j] = c;
    } else {
      const id = remintId({ agentId, scope: recordScope(c), content: c.content, taken: (x) => taken.has(x) });
      out[j] = { ...c, id };
      stats.reminted++;
    }
    taken.add(out[j]!.id);
  });
  stats.deleted = prevUsed.filter((used) => !used).length;

  const records = out as MemoryRecord[];
  return { records, stats };
}


describe('reconcile against the reference formulation', () => {
  it('pairs random small stores exactly as the reference does', () => {
    for (let n = 0; n < 500; n++) {
      const rand = prng(n + 1);
      const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      const make = (): MemoryRecord => ({
        id: pick(['a', 'b', 'c', 'd', '3:abc']),
        agent_id: 'agent',
        content: pick(['## h\nx', '## h\nx \n', '## g\ny', 'z', '# t\nq', 'abcz']),
        memory_type: 'semantic',
        source: { runtime: 'openclaw', ...(rand() < 0.8 ? { origin_file: pick(['f1', 'f2', 'ns:n1']) } : {}) },
        temporal: { created_at: pick(['t1', 't2']), ...(rand() < 0.5 ? { observed_at: 'o' } : {}), updated_at: pick(['u1', 'u2']) },
        status: 'active',
        namespace: pick(['n1', 'n2']),
        ...(rand() < 0.7 ? { raw_source_format: { heading: pick([null, 'h', 'g', ' ']) } } : {}),
      });
      const prev = Array.from({ length: Math.floor(rand() * 10) }, make);
      const curr = Array.from({ length: Math.floor(rand() * 10) }, make);
      const ours = reconcile({ agentId: 'agent', prev, curr });
      const reference = referenceReconcile({ agentId: 'agent', prev, curr });
      expect(JSON.stringify(ours.records)).toBe(JSON.stringify(reference.records));
      expect(ours.stats).toEqual(reference.stats);
    }
  });
});
