import type { IngestResult } from '@/lib/ledger/ingest';
import { requireStorageAgent } from '../require-agent';
import { readArchiveUpload } from '../body';
import type { RequestContext } from '../context';
import { jsonResponse } from '../errors';
import { sequenceParam } from '../params';
import type { ProtocolRequest, ProtocolResponse } from '../protocol-http';

/** The reply of a stored snapshot (#4, #5c). */
export function snapshotReply(result: IngestResult): ProtocolResponse {
  return jsonResponse({ snapshot_id: result.id, sequence: result.sequence, size_bytes: result.sizeBytes, blob_key: result.blobKey }, 201);
}

/** The reply of a stored delta (#6, #7c). */
export function deltaReply(result: IngestResult): ProtocolResponse {
  return jsonResponse({ delta_id: result.id, sequence: result.sequence, size_bytes: result.sizeBytes }, 201);
}

/**
 * Ingests an upload: a large one on the ingest thread, so the event loop keeps serving other
 * requests while it is parsed, checked and indexed (issue 18 §5); a small one here, where it costs
 * less than the hand-over.
 */
export function ingestUpload(ctx: RequestContext, upload: { kind: 'snapshot' | 'delta'; agentId: string; bytes: Uint8Array; baseSequence?: number }): Promise<IngestResult> {
  const { storage, limits, clock } = ctx.service;
  const params = {
    agentId: upload.agentId, bytes: upload.bytes, now: clock(), limits: limits.archive, tenantId: ctx.tenantId,
    offThread: upload.bytes.byteLength >= limits.ingestThreadMinBytes,
  };
  return upload.kind === 'snapshot' ? storage.ingestSnapshot(params) : storage.ingestDelta({ ...params, baseSequence: upload.baseSequence! });
}

/** PUT /agents/{id}/snapshot — raw `.alf` bytes; stored at the current latest sequence. */
export async function putSnapshotHandler(req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const agent = await requireStorageAgent(ctx);
  const bytes = await readArchiveUpload(req, ctx.service.limits.maxBodyBytes);
  return snapshotReply(await ingestUpload(ctx, { kind: 'snapshot', agentId: agent.id, bytes }));
}

/** POST /agents/{id}/deltas?base_sequence=N — 201, or 409 + `X-Latest-Sequence` on a stale base. */
export async function pushDeltaHandler(req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const baseSequence = sequenceParam(ctx.url, 'base_sequence', true);
  const agent = await requireStorageAgent(ctx);
  const bytes = await readArchiveUpload(req, ctx.service.limits.maxBodyBytes);
  return deltaReply(await ingestUpload(ctx, { kind: 'delta', agentId: agent.id, bytes, baseSequence }));
}
