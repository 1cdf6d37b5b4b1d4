/**
 * Deleting an agent while another agent's upload carrying a file with the same bytes is being
 * indexed: the raw object (content-addressed, shared by every agent holding those bytes) must stay,
 * since the upload's file versions name it once it commits. Before, the delete saw no other
 * reference (the upload's rows were not committed yet), dropped the object, and the other agent's
 * file read as missing from the index. Two storages (two pools, as two processes), the run's
 * PostgreSQL 15 + radosgw. The upload is held just before its commit by a row of this test's own
 * transaction holding the entry's id (unique): no timing.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase } from '@/db/pg/client';
import { NS } from '@/lib/core/ids';
import { sha256Hex, uuidV5 } from '@/lib/core/uuid';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { snapshotBytes } from '@/tests/server/archives';
import { freshBucket, freshDatabase, testS3Client } from '@/tests/engines/use-engines';
import { scaleOutStorage } from '../scale-out';
import type { LineageStorage } from '../types';

let url = '';
let storages: LineageStorage[] = [];

beforeAll(async () => {
  const [dbUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  url = dbUrl;
  const location = { bucket, prefix: 'svc' };
  storages = await Promise.all([0, 1].map(async () => {
    const client = testS3Client(settings);
    return scaleOutStorage({ db: await openPgDatabase(url), blobs: new S3BlobStore(client, location), client, location });
  }));
});
afterAll(async () => {
  await Promise.all(storages.map((s) => s.close()));
});

describe('deleting an agent during another agent\'s upload of the same file bytes', () => {
  it('the shared raw object stays: the other agent\'s file reads back once its upload commits', async () => {
    const [gone, kept, holder] = [randomUUID(), randomUUID(), randomUUID()];
    const [a, b] = storages as [LineageStorage, LineageStorage];
    for (const id of [gone, kept, holder]) await a.registerAgent({ id, name: 'x', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
    // Both snapshots carry raw/openclaw/MEMORY.md with the same bytes.
    await a.ingestSnapshot({ agentId: gone, bytes: await snapshotBytes(gone), now: new Date() });
    const bytes = await snapshotBytes(kept);
    const entryId = uuidV5(NS.alf, `ledger-entry:${kept}:0:snapshot:${sha256Hex(bytes)}`);

    const client = new pg.Client(url);
    await client.connect();
    const waiting = async () => {
      await client.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
      return rows[0]!.n;
    };
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ledger_entries (id, agent_id, seq, kind, blob_key, sha256, size_bytes, created_at)
        VALUES ($1, $2, 0, 'snapshot', 'k', 's', 0, 'x')`, [entryId, holder]);
      const upload = b.ingestSnapshot({ agentId: kept, bytes, now: new Date() });
      while ((await waiting()) < 1) await new Promise((resolve) => setTimeout(resolve, 20));
      // The upload has indexed its files and waits on this test's row to insert its entry.
      let deleted = false;
      const deletion = a.deleteAgent({ agentId: gone }).finally(() => { deleted = true; });
      while (!deleted && (await waiting()) < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      await client.query('ROLLBACK');
      expect((await upload).sequence).toBe(0);
      await deletion;
    } finally {
      await client.end();
    }
    const file = await a.getWorkspaceFile({ agentId: kept, seq: 0, path: 'MEMORY.md' });
    expect(file && Buffer.from(file).toString()).toBe('# Memory\n\n## Fact 1\n');
  });
});
