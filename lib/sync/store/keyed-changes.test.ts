import { describe, expect, it } from 'vitest';
import { exportOpenclawChanges } from '@/lib/adapters/openclaw/export-changes';
import { localTarget } from '../local-target';
import { syncWorkspace } from '../sync';
import { makeSandbox, steppingClock } from '../testing/workspace';
import { openForSync } from './open-store';
import { planFiles, plannedSlots } from './plan';

const facts = (edit?: number) => `# infra\n#tags: memory\n\n${Array.from({ length: 40 }, (_, i) => `## fact ${i}\n${i === edit ? 'edited' : `body ${i}`}\n`).join('\n')}`;

/**
 * A sync with the client-state store keys a changed file's unchanged sections from the store's
 * table of it (the previous keying): only the sections that changed are hashed again.
 */
describe("the store's export of a changed file", () => {
  it('hashes the changed section (and the one key it checks), not the file\'s other 39, and carries the unchanged ones over', async () => {
    const sb = await makeSandbox('lineage-keyed-changes-');
    try {
      const clock = steppingClock();
      const opts = { runtime: 'openclaw' as const, workspace: sb.workspace, target: localTarget(sb.dataDir, clock), alfHome: sb.alfHome, clock };
      await sb.write('memory/semantic/infra.md', facts());
      const { agent } = await syncWorkspace(opts);
      await sb.write('memory/semantic/infra.md', facts(12));
      await syncWorkspace(opts);
      await sb.write('memory/semantic/infra.md', facts(30));
      const opening = await openForSync(sb.alfHome, agent.alf_agent_id);
      if (opening.kind !== 'store') throw new Error('expected the store to be the base');
      try {
        const exported = await exportOpenclawChanges({ workspace: sb.workspace, persistAgentId: false, clock }, async (_agent, context) => opening.store.prior(context, sb.workspace));
        const keyed = exported.files.find((f) => f.rel === 'memory/semantic/infra.md')!.keyed();
        // Sections 12 (edited back) and 30 changed; one key taken over is checked.
        expect({ hashed: keyed.hashed, sections: keyed.keys.length }).toEqual({ hashed: 3, sections: 40 });
        // Its other 38 sections are carried over (plan.ts) but one, which goes in as a known record
        // (SPOT_CHECK): 3 slots, and 37 rows of its table neither parsed nor in the reconcile's base.
        const plan = planFiles(opening.store, exported.files);
        const slotted = plannedSlots(plan);
        expect(slotted.slots.map((slot) => slot.record === null)).toEqual([true, false, false]);
        expect(plan.carried.get('memory/semantic/infra.md')!.old.reduce((n, c) => n + c, 0)).toBe(37);
        expect(plan.lines).toHaveLength(3);
      } finally {
        opening.store.log.close();
      }
    } finally {
      await sb.cleanup();
    }
  });

  it("a table with carried rows counts its lines' bytes as its rows' lines are (the index's linesBytes, the log's live bytes)", async () => {
    const sb = await makeSandbox('lineage-keyed-bytes-');
    try {
      const clock = steppingClock();
      const opts = { runtime: 'openclaw' as const, workspace: sb.workspace, target: localTarget(sb.dataDir, clock), alfHome: sb.alfHome, clock };
      await sb.write('memory/semantic/infra.md', facts());
      await sb.write('memory/semantic/other.md', facts(3));
      const { agent } = await syncWorkspace(opts);
      // Each sync edits one section (a longer body each time): its row and line are new, the other 39 carried.
      const bodies = Array.from({ length: 40 }, (_, i) => `body ${i}`);
      for (const [n, edit] of [12, 30, 12, 7].entries()) {
        bodies[edit] = `edited ${'x'.repeat(n * 7)}`;
        await sb.write('memory/semantic/infra.md', `# infra\n#tags: memory\n\n${bodies.map((body, i) => `## fact ${i}\n${body}\n`).join('\n')}`);
        expect((await syncWorkspace(opts)).changes).toMatchObject({ updates: 1 });
        const opening = await openForSync(sb.alfHome, agent.alf_agent_id);
        if (opening.kind !== 'store') throw new Error('expected the store to be the base');
        try {
          const { store } = opening;
          let live = 0;
          for (const file of store.index.files) {
            live += file.raw.len + (file.table?.len ?? 0) + file.linesBytes;
            if (!file.table) continue;
            const rows = store.table(file.rel);
            expect(file.linesBytes, file.rel).toBe(rows.reduce((n, row) => n + row.line.len, 0));
            for (const row of rows) expect(store.log.read(row.line).toString('utf8')).toMatch(/^\{"id":/);
          }
          expect(store.index.liveBytes).toBe(live);
        } finally {
          opening.store.log.close();
        }
      }
    } finally {
      await sb.cleanup();
    }
  });

  it('carries over the sections whose rows did not pair early (edited once: P2 kept their ids) when no other section has their content', async () => {
    const sb = await makeSandbox('lineage-keyed-alone-');
    try {
      const clock = steppingClock();
      const opts = { runtime: 'openclaw' as const, workspace: sb.workspace, target: localTarget(sb.dataDir, clock), alfHome: sb.alfHome, clock };
      // Sections 20 and 21 share a heading, and so do 24 and 25, and 38 and 39 (the last).
      const heading = (i: number) => (i === 20 || i === 21 ? 'twin' : i === 24 || i === 25 ? 'pair' : i === 38 || i === 39 ? 'end' : `fact ${i}`);
      const file = (body: (i: number) => string) => `# infra\n#tags: memory\n\n${Array.from({ length: 40 }, (_, i) => `## ${heading(i)}\n${body(i)}\n`).join('\n')}`;
      await sb.write('memory/semantic/infra.md', file((i) => `body ${i}`));
      const { agent } = await syncWorkspace(opts);
      // Edited under their headings, each keeps its id (P2), no longer its birth id: sections
      // 5..14, the twins (two bodies) and the pairs (one body each: the same content twice).
      const edited: Record<number, string> = { 20: 'same', 21: 'other', 24: 'dup', 25: 'dup', 38: 'last', 39: 'last' };
      const second = (i: number) => edited[i] ?? (i >= 5 && i < 15 ? `edited ${i}` : `body ${i}`);
      await sb.write('memory/semantic/infra.md', file(second));
      expect((await syncWorkspace(opts)).changes).toMatchObject({ creates: 0, updates: 16, deletes: 0 });
      // Now section 30 is edited; twin 21 takes twin 20's content, and pairs 25 and 39 one of their own.
      const third: Record<number, string> = { 30: 'edited 30', 21: 'same', 25: 'solo', 39: 'final' };
      await sb.write('memory/semantic/infra.md', file((i) => third[i] ?? second(i)));
      const opening = await openForSync(sb.alfHome, agent.alf_agent_id);
      if (opening.kind !== 'store') throw new Error('expected the store to be the base');
      try {
        const exported = await exportOpenclawChanges({ workspace: sb.workspace, persistAgentId: false, clock }, async (_agent, context) => opening.store.prior(context, sb.workspace));
        const plan = planFiles(opening.store, exported.files);
        // Slots: the four sections edited now, the known record spot-checked (section 0), twin 20
        // (its content is twin 21's now), pair 24 (its content was pair 25's) and pair 38 (its
        // content was 39's, the file's last section: after the last one taken over). The ten edited
        // last time are carried over with the rest: 32 rows. Without that rule those ten get
        // slots too; without either half of "alone", twin 20 or pair 24 (or 38) is carried.
        const slotted = plannedSlots(plan);
        expect(slotted.slots).toHaveLength(8);
        expect(plan.carried.get('memory/semantic/infra.md')!.old.reduce((n, c) => n + c, 0)).toBe(32);
      } finally {
        opening.store.log.close();
      }
      expect((await syncWorkspace(opts)).changes).toMatchObject({ creates: 0, updates: 4, deletes: 0 });
    } finally {
      await sb.cleanup();
    }
  });
});
