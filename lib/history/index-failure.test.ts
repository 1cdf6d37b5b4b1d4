/**
 * A background catch-up's failure kept for the next reader (pending-index.ts `recordIndexFailure`,
 * `indexFailure`): named while its entry is pending, gone once it is folded. The full disk itself
 * is tests/cli/full-disk-deferred-fold.test.ts (root only); here the failure is a damaged pending blob.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FsBlobStore } from '@/lib/ledger/blob-store';
import { indexCatchUpFailed } from './background-indexer';
import { indexFailure, indexPending, runBackgroundCatchUp } from './pending-index';
import { HistoryGenerator } from './testing/generator';
import { tempLedger } from './testing/temp-ledger';

const AGENT = '7b0f3c2e-7777-4a2b-8c3d-0000000000a1';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('a failed catch-up\'s record', () => {
  it('names the entry it could not fold while that entry is pending; a catch-up that folds it removes the record', async () => {
    const t = tempLedger();
    cleanups.push(t.cleanup);
    const gen = new HistoryGenerator(t.ledger, AGENT, 77);
    gen.deferIndexFrom = 1;
    gen.register();
    gen.randomMutations();
    await gen.sync(0);
    const { sqlite, dataDir } = t.ledger.db;
    const [entry] = sqlite.prepare('SELECT e.seq, e.kind, e.blob_key FROM index_pending p JOIN ledger_entries e USING (agent_id, seq, kind)').all() as { seq: number; kind: string; blob_key: string }[];
    const whole = (t.ledger.blobs as FsBlobStore).pathOf(entry!.blob_key);
    const file = path.join(path.dirname(whole), fs.readdirSync(path.dirname(whole)).find((name) => name.startsWith(path.basename(whole)))!);
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, 'not the blob');
    expect(indexFailure(dataDir, sqlite)).toBeNull();

    await expect(runBackgroundCatchUp(t.ledger)).rejects.toMatchObject({ code: 'blob_corrupt' });
    const failure = indexFailure(dataDir, sqlite);
    expect(failure).toMatchObject({ agent_id: AGENT, sequence: entry!.seq, kind: entry!.kind, code: 'blob_corrupt' });
    expect(Date.parse(failure!.at)).not.toBeNaN();
    expect(indexCatchUpFailed(dataDir)).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'index-catch-up.pid'))).toBe(false);

    fs.writeFileSync(file, bytes);
    expect(await runBackgroundCatchUp(t.ledger)).toBe(1);
    expect(indexPending(sqlite)).toBe(false);
    expect(indexFailure(dataDir, sqlite)).toBeNull();
    expect(indexCatchUpFailed(dataDir)).toBe(false);
  });

  it('a record whose entry is no longer pending (a rebuild folded it) is none, and the next catch-up removes it; an unreadable one is none', async () => {
    const t = tempLedger();
    cleanups.push(t.cleanup);
    const gen = new HistoryGenerator(t.ledger, AGENT, 78);
    gen.register();
    gen.randomMutations();
    await gen.sync(0);
    const { sqlite, dataDir } = t.ledger.db;
    const record = path.join(dataDir, 'index-catch-up.failed');
    fs.writeFileSync(record, '');
    expect(indexFailure(dataDir, sqlite)).toBeNull();
    fs.writeFileSync(record, `${JSON.stringify({ agent_id: AGENT, sequence: 0, kind: 'snapshot', code: 'disk_full', error: 'no space left', at: new Date().toISOString() })}\n`);
    expect(indexFailure(dataDir, sqlite)).toBeNull();
    expect(await runBackgroundCatchUp(t.ledger)).toBe(0);
    expect(fs.existsSync(record)).toBe(false);
  });
});
