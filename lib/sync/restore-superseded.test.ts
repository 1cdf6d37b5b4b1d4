/**
 * `lineage restore -w` in a workspace whose marker names the head's sequence, while the head there
 * is not what the workspace holds: another machine's `--force-first-sync` snapshot stored at that
 * sequence since (README "Two machines, one agent"), or a memory file edited since the last sync.
 * The marker alone used to make it `none` (nothing written, even with --replace), so the README's
 * remedy did nothing; it is a prompt-update now, and --replace writes the head.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { B_MEMORY, replacedByB } from './testing/two-machines';
import { makeSandbox, steppingClock } from './testing/workspace';

describe('restore -w at the head the workspace\'s marker names', () => {
  it('another machine\'s snapshot replaced the head at that sequence: a prompt-update, and --replace writes it; the next sync is taken', async () => {
    const sb = await makeSandbox('lineage-restore-superseded-');
    try {
      const target = localTarget(sb.dataDir, () => new Date(), { packing: 'inline', indexing: 'inline' });
      const clock = steppingClock();
      // A syncs MEMORY.md and a delta at 1; B, a copy of A's workspace, uploads --force-first-sync: its snapshot at 1.
      const { agentId, homeA, syncA } = await replacedByB({ sb, target, clockA: clock, clockB: clock });
      const bMemory = B_MEMORY;

      const restore = (replace: boolean) => restoreAgent({ runtime: 'openclaw', target, agentId, workspace: sb.workspace, replace, alfHome: homeA, clock });
      const asked = await restore(false);
      expect(asked).toMatchObject({ action: 'prompt-update', applied: false, sequence: 1, would_change: ['MEMORY.md'] });
      expect((await fs.readFile(path.join(sb.workspace, 'MEMORY.md'))).toString()).toContain('alpha fact from A');
      expect(await restore(true)).toMatchObject({ action: 'prompt-update', applied: true, sequence: 1 });
      expect((await fs.readFile(path.join(sb.workspace, 'MEMORY.md'))).toString()).toBe(bMemory);
      // Now at B's snapshot (its base too): nothing more to restore, and A's next edit is a delta on it.
      expect(await restore(false)).toMatchObject({ action: 'none', applied: false });
      await sb.write('MEMORY.md', `${bMemory}\n## Alpha2\nafter the restore\n`);
      expect(await syncA()).toMatchObject({ sequence: 2, delta: true, changes: { creates: 1, updates: 0, deletes: 0 } });
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('a memory file edited since the last sync: a prompt-update naming it, not none', async () => {
    const sb = await makeSandbox('lineage-restore-edited-');
    try {
      const target = localTarget(sb.dataDir, () => new Date(), { packing: 'inline', indexing: 'inline' });
      const clock = steppingClock();
      const alfHome = path.join(sb.root, 'home');
      await sb.write('MEMORY.md', '# M\n\n## Base\nsynced\n');
      const agentId = (await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome, clock })).agent.alf_agent_id;
      const restore = (replace: boolean) => restoreAgent({ runtime: 'openclaw', target, agentId, workspace: sb.workspace, replace, alfHome, clock });
      expect(await restore(false)).toMatchObject({ action: 'none', applied: false });
      await sb.write('MEMORY.md', '# M\n\n## Base\nedited, not synced\n');
      expect(await restore(false)).toMatchObject({ action: 'prompt-update', applied: false, would_change: ['MEMORY.md'] });
      expect((await fs.readFile(path.join(sb.workspace, 'MEMORY.md'))).toString()).toContain('edited, not synced');
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
