import { requireAgent } from '@/lib/ledger/agents';
import { ingestDelta, ingestSnapshot, type IngestResult } from '@/lib/ledger/ingest';
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

/** PUT /agents/{id}/snapshot — raw `.alf` bytes; stored at the current latest sequence. */
export async function putSnapshotHandler(req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const { ledger, limits, clock } = ctx.service;
  const agent = requireAgent({ ledger, agentId: ctx.params.id!, tenantId: ctx.tenantId });
  const bytes = await readArchiveUpload(req, limits.maxBodyBytes);
  const result = await ingestSnapshot({
    ledger, agentId: agent.id, bytes, now: clock(), limits: limits.archive, tenantId: ctx.tenantId,
  });
  return snapshotReply(result);
}

/** POST /agents/{id}/deltas?base_sequence=N — 201, or 409 + `X-Latest-Sequence` on a stale base. */
export async function pushDeltaHandler(req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const { ledger, limits, clock } = ctx.service;
  const baseSequence = sequenceParam(ctx.url, 'base_sequence', true);
  const agent = requireAgent({ ledger, agentId: ctx.params.id!, tenantId: ctx.tenantId });
  const bytes = await readArchiveUpload(req, limits.maxBodyBytes);
  const result = await ingestDelta({
    ledger, agentId: agent.id, baseSequence, bytes, now: clock(), limits: limits.archive, tenantId: ctx.tenantId,
  });
  return deltaReply(result);
}
