import type { LedgerEntryRow } from '@/db/schema';
import { requireStorageAgent } from '../require-agent';
import type { RequestContext } from '../context';
import { jsonResponse, ServiceError } from '../errors';
import { bytesResponse } from '../protocol-http';
import { sequenceParam } from '../params';
import { checkSignature, downloadUrl } from '../signed-url';
import type { ProtocolRequest, ProtocolResponse } from '../protocol-http';

async function deltaLink(ctx: RequestContext, entry: LedgerEntryRow) {
  return { url: await downloadUrl(ctx, entry), sequence: entry.seq, size_bytes: entry.size_bytes, created_at: entry.created_at };
}

/** GET /agents/{id}/restore[?up_to_sequence=N] — snapshot + ascending deltas as signed URLs. */
export async function restoreHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const upToSequence = sequenceParam(ctx.url, 'up_to_sequence');
  const plan = await ctx.service.storage.restorePlan({ agentId: ctx.params.id!, upToSequence, tenantId: ctx.tenantId });
  return jsonResponse({
    snapshot: { url: await downloadUrl(ctx, plan.snapshot), snapshot_id: plan.snapshot.id, sequence: plan.snapshot.seq },
    deltas: await Promise.all(plan.deltas.map((entry) => deltaLink(ctx, entry))),
  });
}

/** GET /agents/{id}/deltas?since=N — every delta with sequence > N (default 0), ascending. */
export async function deltasSinceHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const since = sequenceParam(ctx.url, 'since') ?? 0;
  const agent = await requireStorageAgent(ctx);
  const entries = await ctx.service.storage.listEntries({ agentId: agent.id, sinceSeq: since, kind: 'delta' });
  return jsonResponse({ deltas: await Promise.all(entries.map((entry) => deltaLink(ctx, entry))) });
}

/** GET /agents/{id}/snapshot — a signed link to the latest snapshot; 404 before the first sync. */
export async function getSnapshotHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const agent = await requireStorageAgent(ctx);
  const snapshots = await ctx.service.storage.listEntries({ agentId: agent.id, kind: 'snapshot' });
  const latest = snapshots[snapshots.length - 1];
  if (!latest) throw new ServiceError('not_found', `agent ${agent.id} has no snapshot yet`);
  return jsonResponse({ snapshot_url: await downloadUrl(ctx, latest), snapshot_id: latest.id, sequence: latest.seq });
}

/** GET /v1/blobs/{agent}/{entry}?exp&sig — the exact stored bytes; no Authorization header. */
export async function downloadBlobHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  await checkSignature(ctx, 'GET');
  const { storage } = ctx.service;
  const entry = await storage.getEntry({ agentId: ctx.params.agentId!, entryId: ctx.params.entryId! });
  if (!entry) throw new ServiceError('not_found', 'blob not found');
  const bytes = await storage.readEntryBytes({ entry });
  return bytesResponse(bytes);
}
