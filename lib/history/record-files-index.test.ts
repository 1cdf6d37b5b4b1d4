import { embeddedStorage } from '@/lib/storage/embedded';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot } from '@/lib/core/archive';
import { registerAgent, type Ledger } from '@/lib/ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { DELETED_FILE, NEW_SECTION, recordOnlyDelta, standardWorkspace } from '@/tests/interop/reference-archives';
import { getWorkspaceFile, workspaceAlfAt } from './queries';
import { rebuildIndex } from './rebuild';
import { dumpIndex, tempLedger } from './testing/temp-ledger';

let ledger: Ledger;
let cleanup: () => void;
let tmp: string;
let agentId: string;

beforeAll(async () => {
  ({ ledger, cleanup } = tempLedger());
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'record-files-'));
  const { exported, bytes } = await standardWorkspace(path.join(tmp, 'ws'));
  agentId = exported.agentId;
  registerAgent({ ledger, id: agentId, name: 'standard', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-06-01T00:00:00Z') });
  await ingestSnapshot({ ledger, agentId, bytes, now: new Date('2026-06-01T00:00:00Z') });
  const delta = await recordOnlyDelta((await readSnapshot(bytes)).records, agentId, 0);
  await ingestDelta({ ledger, agentId, baseSequence: 0, bytes: delta, now: new Date('2026-06-02T00:00:00Z') });
});
afterAll(async () => {
  cleanup?.();
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('record-only deltas in the index', () => {
  it('writes rendered, marked versions for the files the records changed, and a deletion for the emptied file', () => {
    const rows = ledger.db.sqlite.prepare('SELECT path, deleted, reconstructed FROM raw_file_versions WHERE seq = 1 ORDER BY path').all();
    expect(rows).toEqual([{ path: 'MEMORY.md', deleted: 0, reconstructed: 1 }, { path: DELETED_FILE, deleted: 1, reconstructed: null }]);
  });

  it('serves the same bytes as the restore fold (the .alf download at that sequence)', async () => {
    const shown = getWorkspaceFile({ db: ledger.db, agentId, seq: 1, path: 'MEMORY.md' })!;
    expect(Buffer.from(shown).toString('utf8')).toContain(NEW_SECTION);
    const folded = await readSnapshot(await workspaceAlfAt({ storage: embeddedStorage(ledger), agentId, seq: 1 }));
    expect(Buffer.from(folded.raw.get('raw/openclaw/MEMORY.md')!).equals(Buffer.from(shown))).toBe(true);
    expect(folded.raw.has(`raw/openclaw/${DELETED_FILE}`)).toBe(false);
  });

  it('a rebuild writes the same rows as the incremental indexer', async () => {
    const incremental = dumpIndex(ledger);
    await rebuildIndex({ ledger });
    expect(dumpIndex(ledger)).toEqual(incremental);
  });
});
