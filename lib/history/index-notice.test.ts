/**
 * An agent whose history index stops short of its ledger says so (pending-index.ts `indexNotice`,
 * the embedded storage's `indexNotice` verb behind the agent's pages): a pending entry whose blob is
 * damaged is passed over by every read (embedded.ts `indexCaughtUp`), which then answered from an
 * index lacking it and all that follows, without a word. The served case, the page and its JSON:
 * tests/server/index-notice.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { openLedger } from '@/lib/ledger';
import { embeddedStorage } from '@/lib/storage/embedded';
import { indexNotice, indexPending, runBackgroundCatchUp } from './pending-index';
import { twoPendingAgents } from './testing/pending-agents';

const BROKEN = '7b0f3c2e-8888-4a2b-8c3d-0000000000a1';
const HEALTHY = '7b0f3c2e-8888-4a2b-8c3d-0000000000a2';
const TENANT = 'tenant-a';
const OTHER = 'tenant-b';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const twoAgents = () => twoPendingAgents({ broken: BROKEN, healthy: HEALTHY, tenant: TENANT, seeds: [91, 92], cleanups });

describe('the history index notice', () => {
  it('names the sequence the history stops at, the entry stored and not folded, why and what to run — to the agent\'s tenant only', async () => {
    const { ledger, last, file } = await twoAgents();
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, 'not the blob');
    const storage = embeddedStorage(ledger);

    // The read folds what it can (the healthy agent's entry) and passes over the damaged one.
    const stats = await storage.getAgentWithStats({ agentId: BROKEN, tenantId: TENANT, now: new Date() });
    expect(stats?.latest_sequence).toBe(last.seq);
    expect(indexPending(ledger.db.sqlite, HEALTHY)).toBe(false);
    expect(indexPending(ledger.db.sqlite, BROKEN)).toBe(true);

    const notice = await storage.indexNotice({ agentId: BROKEN, tenantId: TENANT });
    expect(notice).toMatchObject({ agent_id: BROKEN, indexed_through: last.seq - 1, pending_from: last.seq, kind: last.kind, pending: 1, code: 'blob_corrupt' });
    expect(Date.parse(notice!.since!)).not.toBeNaN();
    expect(notice!.message).toContain(`stops at sequence ${last.seq - 1}`);
    expect(notice!.message).toContain(`sequence ${last.seq} (${last.kind}) is stored in the ledger but could not be folded`);
    expect(notice!.message).toMatch(/blob .* missing or damaged/);
    expect(notice!.action).toContain('lineage doctor');
    expect(notice!.action).toContain('lineage index --catch-up');
    // Nothing of the server's filesystem reaches a tenant.
    expect(JSON.stringify(notice)).not.toContain(ledger.db.dataDir);

    // The same agent seen from outside its tenant: nothing (as the agent itself is nothing there); the healthy agent: nothing.
    expect(await storage.indexNotice({ agentId: BROKEN, tenantId: OTHER })).toBeNull();
    expect(await storage.indexNotice({ agentId: BROKEN, tenantId: null })).toBeNull();
    expect(await storage.indexNotice({ agentId: BROKEN })).not.toBeNull();
    expect(await storage.indexNotice({ agentId: HEALTHY, tenantId: TENANT })).toBeNull();

    // The blob restored: this process's reads leave the entry they saw fail alone for a while (index-fold-failure.test.ts)
    // until the operator's `lineage index --catch-up` folds it, as the notice says; then the notice is gone.
    fs.writeFileSync(file, bytes);
    expect(await storage.indexNotice({ agentId: BROKEN, tenantId: TENANT })).toMatchObject({ code: 'blob_corrupt' });
    expect(await runBackgroundCatchUp(ledger)).toBe(1);
    expect(await storage.indexNotice({ agentId: BROKEN, tenantId: TENANT })).toBeNull();
    expect(indexPending(ledger.db.sqlite)).toBe(false);
  });

  it('a process that has not seen the fold fail says why all the same: from a catch-up\'s record, else by trying the agent\'s fold', async () => {
    const { ledger, dir, last, file } = await twoAgents();
    fs.writeFileSync(file, 'not the blob');
    await expect(runBackgroundCatchUp(ledger)).rejects.toMatchObject({ code: 'blob_corrupt' });
    const record = JSON.parse(fs.readFileSync(path.join(dir, 'index-catch-up.failed'), 'utf8')) as { at: string };

    // A fresh handle (another process: the server started after the catch-up failed) reads the record: its time is the catch-up's.
    const fresh = openLedger(dir);
    cleanups.unshift(() => closeDatabase(fresh.db));
    expect(await embeddedStorage(fresh).indexNotice({ agentId: BROKEN, tenantId: TENANT })).toMatchObject({ pending_from: last.seq, code: 'blob_corrupt', since: record.at });

    // No record, and no fold failed on this handle yet (a fold on the ingest thread failed on another agent's
    // entry too, and only that one was thrown): the notice tries this agent's fold itself, and says why it failed.
    fs.rmSync(path.join(dir, 'index-catch-up.failed'));
    const another = openLedger(dir);
    cleanups.unshift(() => closeDatabase(another.db));
    expect(await indexNotice(another, BROKEN)).toMatchObject({ pending_from: last.seq, code: 'blob_corrupt' });
    expect(await indexNotice(another, HEALTHY)).toBeNull();
  });
});
