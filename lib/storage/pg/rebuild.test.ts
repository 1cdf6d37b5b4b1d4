/**
 * The PostgreSQL rebuild's own rules (beyond rebuild == incremental, which the conformance suite
 * shows): one rebuild at a time across processes (the advisory lock), a blob missing from the
 * bucket refuses the rebuild before anything changes, and an upload during a rebuild waits for it
 * and is indexed after it.
 */
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { isLedgerError } from '@/lib/ledger/errors';
import { freshBucket, freshDatabase, testS3Client, usePostgres, useRadosgw } from '@/tests/engines/use-engines';
import { scaleOutStorage } from '../scale-out';
import { dumpPg } from '../testing/dumps';
import { agentHistory, oneRecordDelta } from '../testing/scenario';
import type { LineageStorage } from '../types';

const AGENT = '7d7d7d7d-1111-4a2b-8c3d-000000000001';
const START = Date.parse('2026-11-02T08:00:00Z');
let db: PgLineageDb;
let storage: LineageStorage;
let blobs: S3BlobStore;
let latest = 0;

beforeAll(async () => {
  await Promise.all([usePostgres(), useRadosgw()]);
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  db = await openPgDatabase(url);
  const client = testS3Client(settings);
  const location = { bucket, prefix: '' };
  blobs = new S3BlobStore(client, location);
  storage = scaleOutStorage({ db, blobs, client, location });
  await storage.registerAgent({ id: AGENT, name: 'a', sourceRuntime: 'openclaw', tenantId: null, now: new Date(START) });
  for (const u of await agentHistory(AGENT, 7, START, 6)) {
    latest = (u.kind === 'snapshot'
      ? await storage.ingestSnapshot({ agentId: AGENT, bytes: u.bytes, now: u.now })
      : await storage.ingestDelta({ agentId: AGENT, baseSequence: u.baseSequence, bytes: u.bytes, now: u.now })).sequence;
  }
});
afterAll(async () => storage?.close());

describe('rebuilding the PostgreSQL index from the bucket', () => {
  it('two rebuilds at once: one runs, the other is refused with busy', async () => {
    const before = await dumpPg(db);
    const results = await Promise.allSettled([storage.rebuildIndex(), storage.rebuildIndex()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(isLedgerError(refused.reason, 'busy')).toBe(true);
    expect(await dumpPg(db)).toEqual(before);
  });

  it('an upload during a rebuild waits for it and is indexed after it', async () => {
    const bytes = await oneRecordDelta(AGENT, latest, 'written during the rebuild', new Date(START + 86_400_000));
    const [rebuilt, ingested] = await Promise.all([
      storage.rebuildIndex(),
      new Promise((resolve) => setTimeout(resolve, 20)).then(() => storage.ingestDelta({ agentId: AGENT, baseSequence: latest, bytes, now: new Date(START + 86_400_000) })),
    ]);
    expect(ingested.sequence).toBe(latest + 1);
    latest = ingested.sequence;
    expect(rebuilt.entries).toBeGreaterThan(0);
    expect((await storage.search({ q: '"written during the rebuild"' })).total).toBe(1);
    const before = await dumpPg(db);
    await storage.rebuildIndex();
    expect(await dumpPg(db)).toEqual(before);
  });

  it('a blob missing from the bucket refuses the rebuild, naming the entry, and the index stays as it was', async () => {
    const before = await dumpPg(db);
    const [entry] = await storage.listEntries({ agentId: AGENT, sinceSeq: 1, upToSeq: 2 });
    await blobs.client.send(new DeleteObjectCommand({ Bucket: blobs.location.bucket, Key: blobs.objectKey(entry!.blob_key) }));
    const error = await storage.rebuildIndex().catch((e: unknown) => e);
    expect(isLedgerError(error, 'blob_corrupt')).toBe(true);
    expect((error as Error).message).toContain(entry!.blob_key);
    expect(await dumpPg(db)).toEqual(before);
  });
});

describe('what PostgreSQL cannot store', () => {
  it('a record whose content holds U+0000 is refused with bad_archive before anything is written (as on SQLite: conformance)', async () => {
    const before = await dumpPg(db);
    const listed = await blobs.list();
    const bytes = await oneRecordDelta(AGENT, latest, 'before\u0000after', new Date(START + 2 * 86_400_000));
    const error = await storage.ingestDelta({ agentId: AGENT, baseSequence: latest, bytes, now: new Date(START + 2 * 86_400_000) }).catch((e: unknown) => e);
    expect(isLedgerError(error, 'bad_archive')).toBe(true);
    expect((error as Error).message).toContain('content holds a NUL character (U+0000)');
    expect(await dumpPg(db)).toEqual(before);
    expect(await blobs.list()).toEqual(listed);
  });
});
