/**
 * The storage conformance suite: the same uploads ingested through the embedded backend (SQLite +
 * filesystem) and the scale-out one (the run's real PostgreSQL 15 + radosgw, a fresh database and
 * bucket), and every verb asked the same questions of both; the answers must be equal. Cases:
 * conformance-cases.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { openLedger, type Ledger } from '@/lib/ledger/ledger';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { freshBucket, freshDatabase, testS3Client, usePostgres, useRadosgw } from '@/tests/engines/use-engines';
import { runConformanceCases, runKeyHandOverCases, type Backends } from './conformance-cases';
import { runLedgerVerbCases } from './conformance-ledger-cases';
import { runDashboardReadCases } from './conformance-dashboard-cases';
import { embeddedStorage } from './embedded';
import { scaleOutStorage } from './scale-out';
import { dumpEmbedded, dumpPg, facetFillStatement } from './testing/dumps';

const backends = {} as Backends;
let dir = '';
let ledger: Ledger;
let pgDb: PgLineageDb;

beforeAll(async () => {
  await Promise.all([usePostgres(), useRadosgw()]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-conformance-'));
  ledger = openLedger(dir);
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  pgDb = await openPgDatabase(url);
  const client = testS3Client(settings);
  const location = { bucket, prefix: 'lineage' };
  backends.embedded = {
    storage: embeddedStorage(ledger), dump: async () => dumpEmbedded(ledger),
    refillFacets: async () => void ledger.db.sqlite.exec(facetFillStatement('sqlite')),
  };
  backends.scaleOut = {
    storage: scaleOutStorage({ db: pgDb, blobs: new S3BlobStore(client, location), client, location }), dump: () => dumpPg(pgDb),
    refillFacets: async () => void await pgDb.pool.query(facetFillStatement('pg')),
  };
});

afterAll(async () => {
  await backends.embedded?.storage.close();
  await backends.scaleOut?.storage.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('storage conformance: embedded (SQLite + fs) and scale-out (PostgreSQL 15 + radosgw) give the same answers', () => {
  runConformanceCases(backends);
  runLedgerVerbCases(backends);
  runDashboardReadCases(backends);
  // Last: it leaves agents held by random key ids (see there).
  runKeyHandOverCases(backends);
});
