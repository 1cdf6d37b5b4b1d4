/**
 * compareWorkspace's `content_changed` of a move, through the real pipeline (OpenClaw workspace →
 * sync → ledger → index). A section's stored text carries the blank line after it when another
 * section follows and none when it is last in its file, so a section moved byte for byte from the
 * middle of one file to the end of another is stored with other bytes — the move itself pairs the
 * two as one text (provenance.ts `moveContentKey`). The comparison must not call such a move
 * "edited" (the compare page's "and edited"); one edited after the move is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { compareWorkspace } from '../queries';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const HEAD = '# Memory\n\nLong-term notes.\n\n';
const REGEX = '## Regex notes\n\nPattern a.b*c matches <b>bold</b>.\n';
const GATEWAY = '## Gateway\n\nThe gateway IP is 10.20.0.9 on VLAN 7.\n';
const COFFEE = '## Coffee\n\nThe user likes café crème.\n';

describe('compareWorkspace: a move is "edited" only when its text was', () => {
  it('a section moved unchanged from the middle of MEMORY.md to the end of another file is a move, not edited; edited after, it is', async () => {
    const sb = await makeSandbox('lineage-compare-move-');
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    let ledger: Ledger | null = null;
    cleanups.push(async () => {
      if (ledger) closeDatabase(ledger.db);
      await sb.cleanup();
    });
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    await sb.write('MEMORY.md', HEAD + [REGEX, GATEWAY, COFFEE].join('\n'));
    const agentId = (await sync()).agent.alf_agent_id;
    // #1: Gateway leaves MEMORY.md, byte for byte, for the end of memory/project-infra.md.
    await sb.write('MEMORY.md', HEAD + [REGEX, COFFEE].join('\n'));
    await sb.write('memory/project-infra.md', GATEWAY);
    expect((await sync()).sequence).toBe(1);
    // #2: it is edited there.
    await sb.write('memory/project-infra.md', GATEWAY.replace('VLAN 7', 'VLAN 8'));
    expect((await sync()).sequence).toBe(2);
    ledger = openLedger(sb.dataDir);
    const compare = (from: number, to: number) => compareWorkspace({ db: ledger!.db, agentId, from, to })!;

    const moved = compare(0, 1);
    expect(moved.counts).toMatchObject({ created: 0, updated: 0, deleted: 0, moved: 1 });
    expect(moved.memories.moved).toHaveLength(1);
    const [move] = moved.memories.moved;
    expect([move!.before.origin_file, move!.after.origin_file, move!.after.heading]).toEqual(['MEMORY.md', 'memory/project-infra.md', 'Gateway']);
    // The stored texts differ by the blank line a following section gave it: the same words all the same.
    expect(move!.before.content).not.toBe(move!.after.content);
    expect(move!.content_changed).toBe(false);

    const edited = compare(0, 2).memories.moved;
    expect(edited.map((m) => [m.after.heading, m.content_changed])).toEqual([['Gateway', true]]);
    expect(compare(1, 2).memories.updated.map((u) => u.after.heading)).toEqual(['Gateway']);
  });
});
