/**
 * Pending presigned uploads on the scale-out backend: what an upload is for lives in the
 * `pending_uploads` table and its bytes in the bucket's staging prefix (s3-staging.ts), so the
 * confirm may reach any server process. Same answers as `UploadStore` (lib/server/upload-store.ts).
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type pg from 'pg';
import { withAdvisoryLock } from '@/db/pg/advisory-lock';
import type { PgPendingUploadRow } from '@/db/pg/schema';
import {
  deleteStaged, listStaged, presignStagingPut, readStaged, stagingKey, type Staging,
} from '@/lib/ledger/s3-staging';
import type { PendingUpload } from '@/lib/server/upload-store';
import type { PendingUploads } from '../types';
import { first, rows, type Queryable } from './sql';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function toUpload(row: PgPendingUploadRow): PendingUpload {
  return {
    id: row.id, agentId: row.agent_id, tenantId: row.tenant_id, kind: row.kind, baseSequence: row.base_sequence, expiresAt: row.expires_at,
    ...(row.confirmed_status === null ? {} : { confirmed: { status: row.confirmed_status, body: JSON.parse(row.confirmed_body ?? '{}') as Record<string, unknown> } }),
  };
}

export function pgPendingUploads(db: pg.Pool, staging: Staging): PendingUploads {
  const at = (uploadId: string) => ({ ...staging, uploadId });
  const remove = async (id: string) => {
    if (!UUID_RE.test(id)) return;
    await deleteStaged(at(id));
    await db.query('DELETE FROM pending_uploads WHERE id = $1', [id]);
  };
  return {
    async create(input) {
      const upload: PendingUpload = { id: randomUUID(), ...input };
      await db.query('INSERT INTO pending_uploads (id, agent_id, tenant_id, kind, base_sequence, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [upload.id, upload.agentId, upload.tenantId, upload.kind, upload.baseSequence, upload.expiresAt]);
      return upload;
    },
    async get(id) {
      if (!UUID_RE.test(id)) return null;
      const row = await first<PgPendingUploadRow>(db, 'SELECT * FROM pending_uploads WHERE id = $1', [id]);
      return row ? toUpload(row) : null;
    },
    async putBytes(id, bytes) {
      await staging.client.send(new PutObjectCommand({ Bucket: staging.location.bucket, Key: stagingKey(staging.location, id), Body: bytes }));
    },
    async readBytes(id, limits) {
      if (!UUID_RE.test(id)) return null;
      // One ranged GET: a client may have PUT any size to the presigned URL; nothing larger is read.
      return readStaged({ ...at(id), maxBytes: limits?.maxBytes });
    },
    async uploadUrl(id, expiresInSeconds) {
      return (await presignStagingPut({ ...at(id), expiresInSeconds })).url;
    },
    async markConfirmed(upload, confirmed) {
      await db.query('UPDATE pending_uploads SET confirmed_status = $2, confirmed_body = $3 WHERE id = $1',
        [upload.id, confirmed.status, JSON.stringify(confirmed.body)]);
      // The upload is in the ledger and its reply recorded: a staged object the bucket would not
      // delete now must not turn that into a failed confirm. The sweep removes it with the row.
      await deleteStaged(at(upload.id)).catch(() => undefined);
    },
    // Its own connection: a confirm holds the lock while its ingest takes pooled connections.
    exclusive: (id, task) => withAdvisoryLock({ db: { pool: db }, name: `upload:${id}`, wait: true, ownConnection: true }, task),
    remove,
    async removeAgent(agentId) {
      const ids = await rows<{ id: string }>(db, 'SELECT id FROM pending_uploads WHERE agent_id = $1 ORDER BY id', [agentId]);
      for (const { id } of ids) await remove(id);
      return ids.length;
    },
    async sweep(now, graceMs = 60 * 60 * 1000) {
      for (const row of await rows<{ id: string; expires_at: string }>(db, 'SELECT id, expires_at FROM pending_uploads')) {
        if (Date.parse(row.expires_at) + graceMs < now.getTime()) await remove(row.id);
      }
      await sweepStrays(db, staging, now, graceMs);
    },
  };
}

/**
 * Staged objects no pending upload owns: bytes PUT to a presigned URL still valid after its upload
 * was removed (a confirm refused for its size, an agent deleted). Never acknowledged, never needed
 * by a confirm; removed once older than the grace. The objects are listed before the rows are read:
 * a row exists before its URL is handed out, so an object listed has a row to be found, if it has one.
 */
async function sweepStrays(db: Queryable, staging: Staging, now: Date, graceMs: number): Promise<void> {
  // Only names this service gives uploads (UUIDs): anything else there is not ours to judge.
  const staged = (await listStaged(staging)).filter((s) => UUID_RE.test(s.uploadId));
  if (staged.length === 0) return;
  const ids = staged.map((s) => s.uploadId);
  const owned = new Set((await rows<{ id: string }>(db, 'SELECT id FROM pending_uploads WHERE id = ANY($1::text[])', [ids])).map((r) => r.id));
  for (const { uploadId, lastModified } of staged) {
    if (owned.has(uploadId) || lastModified === null || lastModified.getTime() + graceMs >= now.getTime()) continue;
    await deleteStaged({ ...staging, uploadId });
  }
}