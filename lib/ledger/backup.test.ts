/**
 * A packed blob whose bases are not all in the backup (lib/ledger/backup.ts `copyBlob`): packing takes
 * any earlier blob of the group as a base, one no ledger entry names too (the blob of an upload whose
 * commit a lost WAL took, kept by design). The backup copies only what the ledger names, so that
 * blob's packed copy cannot be read back alone: it is written whole from the source's checked bytes.
 * Real SQLite, real blob files, the real CLI for the backup and for the doctor check of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';
import { runCli } from '@/tests/cli/run-cli';
import { FsBlobStore, registerAgent } from './index';
import { decodePackedHeader } from './packed-blob';

const AGENT = '7b0f3c2e-2222-4a2b-8c3d-0000000000b1';

it('a packed blob whose base the ledger does not name is backed up whole, checked; the unnamed blob is not copied', async () => {
  const t = tempLedger();
  const out = `${t.dir}-backup`;
  try {
    const { ledger } = t;
    registerAgent({ ledger, id: AGENT, name: 'packed', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
    await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
    // An unledgered blob at sequence 1 (as a lost commit leaves one), then the real 1 and 2 packed against the group.
    const unnamed = `${AGENT}/1-00000000deadbeef.alf-delta`;
    await ledger.blobs.put(unnamed, await deltaBytes(AGENT, 0, 101));
    await ingestDelta({ ledger, agentId: AGENT, baseSequence: 0, bytes: await deltaBytes(AGENT, 0, 1), now: new Date() });
    const second = await ingestDelta({ ledger, agentId: AGENT, baseSequence: 1, bytes: await deltaBytes(AGENT, 1, 2), now: new Date() });
    const store = ledger.blobs as FsBlobStore;
    const file = store.fileOf(second.blobKey)!;
    expect(file.endsWith('.packed')).toBe(true);
    expect(decodePackedHeader(second.blobKey, fs.readFileSync(file)).bases).toContain(unnamed);

    const run = await runCli(['backup', '--data', t.dir, '--out', out]);
    expect(run.json, run.stderr).toMatchObject({ ok: true, entries: 3, written_whole: 1 });
    const names = fs.readdirSync(path.join(out, 'blobs'));
    expect(names).not.toContain(path.basename(store.pathOf(unnamed)));
    expect(names).toContain(path.basename(store.pathOf(second.blobKey)));
    expect(new FsBlobStore(path.join(out, 'blobs')).fileOf(second.blobKey)).toBe(path.join(out, 'blobs', path.basename(store.pathOf(second.blobKey))));
    const doctor = await runCli(['doctor', '--data', out]);
    expect(doctor.json, doctor.stderr).toMatchObject({ ok: true, damaged: [], unledgered: [] });
  } finally {
    t.cleanup();
    fs.rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
