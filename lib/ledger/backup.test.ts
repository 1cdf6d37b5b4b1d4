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
import { spawn } from 'node:child_process';
import { requestPacking } from './background-packer';
import { FsBlobStore, PACK_GROUP, registerAgent } from './index';
import { isStopped, startPackerProcess, waitUntil } from './testing/packer-process';
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

it('the packer packs the snapshot\'s blobs while the backup copies them: each is copied in the form it has then, the copy whole and doctor-clean', async () => {
  const t = tempLedger({ packing: 'deferred' });
  const out = `${t.dir}-backup`;
  try {
    const { ledger } = t;
    registerAgent({ ledger, id: AGENT, name: 'packing', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
    await ingestSnapshot({ ledger, agentId: AGENT, bytes: await snapshotBytes(AGENT), now: new Date() });
    for (let seq = 1; seq <= PACK_GROUP; seq++) await ingestDelta({ ledger, agentId: AGENT, baseSequence: seq - 1, bytes: await deltaBytes(AGENT, seq - 1, seq), now: new Date() });
    const root = path.join(t.dir, 'blobs');
    expect(fs.readdirSync(root).filter((n) => n.endsWith('.packed'))).toEqual([]);
    const bin = path.resolve(__dirname, '../../bin/lineage.mjs');
    const backup = spawn(process.execPath, [bin, 'backup', '--data', t.dir, '--out', out], { env: { ...process.env, LINEAGE_BACKUP_STOP_AT: 'blobs' } });
    let stdout = '';
    backup.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const closed = new Promise<void>((resolve) => backup.on('close', () => resolve()));
    await waitUntil('the backup stops after its first blob', () => isStopped(backup.pid!));
    // Every blob but the first was whole when the snapshot was taken; now they are packed (the whole files gone).
    requestPacking(t.dir);
    const packer = startPackerProcess(t.dir);
    expect(await packer.exited).toBe(0);
    const packed = fs.readdirSync(root).filter((n) => n.endsWith('.packed'));
    expect(packed.length).toBeGreaterThan(PACK_GROUP / 2);
    backup.kill('SIGCONT');
    await closed;
    const run = JSON.parse(stdout.trim()) as Record<string, unknown>;
    expect(run).toMatchObject({ ok: true, entries: PACK_GROUP + 1, written_whole: 0 });
    expect(fs.readdirSync(path.join(out, 'blobs')).sort()).toEqual(fs.readdirSync(root).filter((n) => !n.includes('.tmp-')).sort());
    const doctor = await runCli(['doctor', '--data', out]);
    expect(doctor.json, doctor.stderr).toMatchObject({ ok: true, damaged: [], unledgered: [] });
  } finally {
    t.cleanup();
    fs.rmSync(out, { recursive: true, force: true });
  }
}, 180_000);
