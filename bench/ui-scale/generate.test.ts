import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '@/lib/ledger';
import { closeDatabase } from '@/db/client';
import { generateUiScale, type UiScaleManifest } from './generate';
import { HOT_EVERY } from './big-store';

const SHAPE = { agents: 3, syncs: 12, bigMemories: 250, bigSyncs: 31 };
const roots: string[] = [];
afterAll(() => roots.forEach((r) => fs.rmSync(r, { recursive: true, force: true })));

async function generate(): Promise<{ root: string; manifest: UiScaleManifest }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ui-scale-'));
  roots.push(root);
  return { root, manifest: await generateUiScale({ root, shape: SHAPE, log: () => {} }) };
}

function ledgerDigest(root: string) {
  const ledger = openLedger(path.join(root, 'data'));
  try {
    const q = <T>(sql: string) => ledger.db.sqlite.prepare(sql).all() as T[];
    return {
      agents: q<{ id: string; name: string; latest_sequence: number }>('SELECT id, name, latest_sequence FROM agents ORDER BY id'),
      entries: q<{ agent_id: string; seq: number; kind: string; sha256: string }>('SELECT agent_id, seq, kind, sha256 FROM ledger_entries ORDER BY id'),
      live: q<{ agent_id: string; n: number }>('SELECT agent_id, count(*) AS n FROM records WHERE deleted_seq IS NULL GROUP BY agent_id ORDER BY agent_id'),
      hot: q<{ n: number }>(`SELECT max(n) AS n FROM (SELECT count(*) AS n FROM record_versions GROUP BY record_id)`)[0]!.n,
    };
  } finally {
    closeDatabase(ledger.db);
  }
}

describe('ui-scale generator', () => {
  it('writes the requested fleet through the real ledger, the same ledger for the same shape', async () => {
    const a = await generate();
    const da = ledgerDigest(a.root);
    expect(a.manifest.fleet).toHaveLength(SHAPE.agents);
    expect(da.agents).toHaveLength(SHAPE.agents + 1);
    for (const agent of a.manifest.fleet) {
      expect(da.agents.find((r) => r.id === agent.id)).toMatchObject({ name: agent.name, latest_sequence: SHAPE.syncs - 1 });
    }
    expect(da.agents.find((r) => r.id === a.manifest.big.id)).toMatchObject({ name: 'Archive', latest_sequence: SHAPE.bigSyncs - 1 });
    expect(da.entries).toHaveLength(SHAPE.agents * SHAPE.syncs + SHAPE.bigSyncs);
    expect(da.entries.filter((e) => e.kind === 'snapshot')).toHaveLength(SHAPE.agents + 1);
    // The big agent starts with the requested memories (a few added and removed since).
    const bigLive = da.live.find((r) => r.agent_id === a.manifest.big.id)!.n;
    expect(Math.abs(bigLive - SHAPE.bigMemories)).toBeLessThan(10);
    expect(a.manifest.big.records).toBe(bigLive);
    // The hot section's lineage: its birth plus an edit every HOT_EVERY syncs.
    expect(da.hot).toBeGreaterThanOrEqual(1 + Math.floor((SHAPE.bigSyncs - 1) / HOT_EVERY));
    // Syncs interleave across agents in time order, as a fleet's do.
    expect(new Set(da.entries.slice(0, SHAPE.agents + 2).map((e) => e.agent_id)).size).toBeGreaterThan(1);

    const b = await generate();
    expect(ledgerDigest(b.root)).toEqual(da);
  });
});
