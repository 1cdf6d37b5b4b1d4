import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TURNS_PER_DAY, WorkspaceHistory } from './generate';

function digest(turns: number, seed: number): { hash: string; gen: WorkspaceHistory; changedEveryTurn: boolean } {
  const gen = new WorkspaceHistory(turns, seed);
  const hash = createHash('sha256');
  let changedEveryTurn = true;
  for (let t = 0; t < turns; t++) {
    const change = gen.next();
    if (change.writes.size === 0 && change.deletes.length === 0) changedEveryTurn = false;
    for (const [path, text] of change.writes) hash.update(`${t}\0${path}\0${text}\0`);
    for (const path of change.deletes) hash.update(`${t}\0-${path}\0`);
  }
  return { hash: hash.digest('hex'), gen, changedEveryTurn };
}

describe('bench history generator', () => {
  it('is deterministic per seed, changes the workspace every turn, archives and plants facts', () => {
    const a = digest(400, 42);
    expect(digest(400, 42).hash).toBe(a.hash);
    expect(digest(400, 43).hash).not.toBe(a.hash);
    expect(a.changedEveryTurn).toBe(true);
    expect([...a.gen.files.keys()].some((p) => p.startsWith('memory/archive/2026/'))).toBe(true);
    expect(a.gen.facts.length).toBeGreaterThan(8);
    for (const f of a.gen.facts) {
      expect(f.fact).toMatch(/^evt-\d{5}-[0-9a-f]{6}$/);
      expect(f.turn).toBeLessThan(400 - 30);
    }
    expect(a.gen.files.get('memory/semantic/infra.md')?.split('\n')[1]).toMatch(/^#tags: /);
    expect(400 / TURNS_PER_DAY).toBeGreaterThan(30);
  });
});
