import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { apply, materialize, op, render, sameTree, seedModel, stressOp, type Model, type Op } from './testing/histories';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

/**
 * Random edit histories of an OpenClaw workspace: every sequence restores byte-exact, and a sync
 * with nothing changed uploads nothing.
 */
describe('random edit histories', () => {
  for (const [name, edits, numRuns] of [['', op, 40], [' (edits that stress a changed file\'s unchanged sections: duplicates, swaps, copies, multi-line bodies, CRLF, no final newline)', stressOp, 25]] as const) {
    it(`restore every sequence byte-exact; idle syncs upload nothing${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(edits as fc.Arbitrary<Op>, { minLength: 1, maxLength: 14 }), async (ops) => {
          const sb = await makeSandbox('lineage-prop-');
          try {
            const clock = steppingClock();
            const target = localTarget(sb.dataDir, clock);
            const model: Model = seedModel();
            const states: Map<string, Buffer>[] = [];
            let lastSynced: Map<string, Buffer> | null = null;
            let agentId = '';
            for (const o of [{ kind: 'idle' as const }, ...ops]) {
              apply(model, o);
              const files = render(model);
              await materialize(sb.workspace, files);
              const out = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
              agentId = out.agent.alf_agent_id;
              if (lastSynced && sameTree(lastSynced, files)) {
                expect(out.no_changes).toBe(true);
                expect(out.sequence).toBe(states.length - 1);
              } else {
                expect(out.no_changes).toBe(false);
                expect(out.sequence).toBe(states.length);
                states.push(files);
                lastSynced = files;
              }
            }
            for (let seq = 0; seq < states.length; seq++) {
              const out = path.join(sb.root, `restore-${seq}`);
              await restoreAgent({ runtime: 'openclaw', target, agentId, atSequence: seq, out, replace: false, alfHome: sb.alfHome, clock });
              expect(sameTree(await readTree(out), states[seq]!)).toBe(true);
            }
          } finally {
            await sb.cleanup();
          }
        }),
        { numRuns, seed: 20261130, endOnFailure: true },
      );
    }, 240_000);
  }
});
