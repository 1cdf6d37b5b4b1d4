import fs from 'node:fs/promises';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { readSnapshot } from '@/lib/core/archive';
import { validateArchive } from '@/lib/core/validate';
import { unzipSync } from 'fflate';
import { localTarget } from './local-target';
import { rebuildAt } from './restore';
import { statePaths } from './state';
import { exportStateBase } from './state-export';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

/**
 * The reference CLI can take over a workspace from ours: `$ALF_HOME/.alf/state/{agent}-snapshot.alf`
 * is a full `.alf` base and `{agent}.toml` points at its sequence (CONTRACT §2.4). With the `.alf`
 * layout that file is kept by every sync (the stat cache, memo and file keys beside it are only
 * ever optional); with the store layout (the default) `lineage state export` writes it.
 */
describe.each(['store', 'alf'] as const)('the client state a reference CLI reads (%s layout)', (layout) => {
  it('after syncs that used the stat cache, the base is a valid .alf by the reference reader rules (CONTRACT §3) and holds the latest sequence', async () => {
    const sb = await makeSandbox('lineage-takeover-');
    try {
      const clock = steppingClock();
      const target = localTarget(sb.dataDir, clock);
      const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock, layout });
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      await sb.write('SOUL.md', '# Soul\nCalm.\n');
      await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
      const first = await sync();
      await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\n## Standup\nReviewed the queue.\n');
      await sync();
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
      const last = await sync();
      const agentId = first.agent.alf_agent_id;
      const paths = statePaths(sb.alfHome, agentId);
      if (layout === 'store') {
        // The store keeps no `.alf` once it uploads a delta: `lineage state export` writes it.
        await expect(fs.stat(paths.snapshot)).rejects.toThrow();
        expect(await exportStateBase({ alfHome: sb.alfHome, agentId })).toMatchObject({ ok: true, sequence: last.sequence, from: 'store', snapshot_path: paths.snapshot });
      }
      const bytes = new Uint8Array(await fs.readFile(paths.snapshot));

      const verdict = await validateArchive(bytes);
      expect(verdict.errors).toEqual([]);
      expect(verdict.valid).toBe(true);
      // The reader rules: partitions found through the manifest (no index.json needed), manifest
      // last, every partition line a JSON record.
      const entries = unzipSync(bytes);
      const names = Object.keys(entries);
      expect(names.at(-1)).toBe('manifest.json');
      const manifest = JSON.parse(Buffer.from(entries['manifest.json']!).toString('utf8')) as { layers: { memory: { partitions: { file: string; record_count: number }[] } } };
      let lines = 0;
      for (const p of manifest.layers.memory.partitions) {
        const text = Buffer.from(entries[p.file]!).toString('utf8');
        expect(text.endsWith('\n')).toBe(true);
        const records = text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as { id: string });
        expect(records).toHaveLength(p.record_count);
        lines += records.length;
      }
      expect(names).toContain('raw/openclaw/memory/2026-11-02.md');

      // The TOML names the sequence of the upload that base is, and its records are the ledger's at it.
      const toml = parse(await fs.readFile(paths.toml, 'utf8')) as { agent_id: string; last_synced_sequence: number };
      expect(toml).toMatchObject({ agent_id: agentId, last_synced_sequence: last.sequence });
      const ledgerState = await rebuildAt({ target, agentId, now: clock() });
      const base = await readSnapshot(bytes);
      expect(lines).toBe(ledgerState.snapshot.records.length);
      expect(base.records.map((r) => JSON.stringify(r)).sort()).toEqual(ledgerState.snapshot.records.map((r) => JSON.stringify(r)).sort());
      expect([...base.raw.keys()].sort()).toEqual([...ledgerState.snapshot.raw.keys()].sort());

      // And our next sync goes on from there, whichever layout: an idle one finds nothing to do,
      // an edit is one update (with the store, the `.alf` it no longer is is then removed).
      expect(await sync()).toMatchObject({ sequence: last.sequence, no_changes: true });
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.11.\n');
      expect(await sync()).toMatchObject({ sequence: last.sequence + 1, changes: { creates: 0, updates: 1, deletes: 0 } });
      if (layout === 'store') await expect(fs.stat(paths.snapshot)).rejects.toThrow();
    } finally {
      await sb.cleanup();
    }
  });
});
