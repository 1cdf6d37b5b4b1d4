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
});
