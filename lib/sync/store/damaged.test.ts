import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { localTarget } from '../local-target';
import { rebaseWorkspace } from '../rebase';
import { restoreAgent } from '../restore';
import { statePaths } from '../state';
import { syncWorkspace } from '../sync';
import { makeSandbox, readTree, steppingClock } from '../testing/workspace';
import { readIndex } from './index-file';
import { storePaths } from './paths';

/**
 * A store that cannot be read as written (a log cut short, an index torn) is not taken for a
 * base: the sync stops with a clear error whose way out is `lineage sync --rebase`, and after it
 * the history goes on, every sequence restoring byte-exact.
 */
describe('a damaged client-state store', () => {
  for (const damage of ['log cut short', 'index torn'] as const) {
    it(`${damage}: a clear error, --rebase, and the history goes on`, async () => {
      const sb = await makeSandbox('lineage-damaged-');
      try {
        const clock = steppingClock();
        const target = localTarget(sb.dataDir, clock);
        const opts = { runtime: 'openclaw' as const, workspace: sb.workspace, target, alfHome: sb.alfHome, clock };
        await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n\n## Queue\nRedis.\n');
        const first = await syncWorkspace(opts);
        // A second sync: what this machine last sent is a delta (a first snapshot of its own would be adopted).
        await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped.\n');
        expect(await syncWorkspace(opts)).toMatchObject({ sequence: 1 });
        const agentId = first.agent.alf_agent_id;
        const dir = statePaths(sb.alfHome, agentId).dir;
        const { index } = (await readIndex(storePaths(dir, agentId).index))!;
        if (damage === 'log cut short') await fs.truncate(storePaths(dir, agentId).log(index.generation), Math.floor(index.logLength / 2));
        else await fs.truncate(storePaths(dir, agentId).index, 40);

        await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n\n## Queue\nRedis.\n');
        const failed = syncWorkspace(opts);
        if (damage === 'log cut short') await expect(failed).rejects.toMatchObject({ code: 'state_damaged', hint: expect.stringMatching(/lineage sync --rebase/) });
        // A torn index is no state at all: a first sync, which the target's history refuses.
        else await expect(failed).rejects.toMatchObject({ code: 'registration_failed', hint: expect.stringMatching(/lineage sync --rebase/) });

        expect(await rebaseWorkspace(opts)).toMatchObject({ ok: true, sequence: 1 });
        const next = await syncWorkspace(opts);
        expect(next).toMatchObject({ ok: true, sequence: 2, changes: { creates: 0, updates: 1, deletes: 0 } });
        const out = `${sb.root}/restore-2`;
        await restoreAgent({ runtime: 'openclaw', target, agentId, atSequence: 2, out, replace: false, alfHome: sb.alfHome, clock });
        expect(await readTree(out)).toEqual(await readTree(sb.workspace));
        // And the state after it is the store again, readable: an idle sync finds nothing to do.
        expect(await syncWorkspace(opts)).toMatchObject({ sequence: 2, no_changes: true });
        expect((await readIndex(storePaths(dir, agentId).index))?.index.sequence).toBe(2);
      } finally {
        await sb.cleanup();
      }
    });
  }
});
