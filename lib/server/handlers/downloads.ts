import { and, eq } from 'drizzle-orm';
import { ledger_entries, type LedgerEntryRow } from '@/db/schema';
import { requireAgent } from '@/lib/ledger/agents';
import { listEntries, readEntryBytes, restorePlan } from '@/lib/ledger/entries';
import type { RequestContext } from '../context';
import { jsonResponse, ServiceError } from '../errors';
import { bytesResponse } from '../protocol-http';
import { sequenceParam } from '../params';
import { checkSignature, downloadUrl } from '../signed-url';
import type { ProtocolRequest, ProtocolResponse } from '../protocol-http';

function deltaLink(ctx: RequestContext, entry: LedgerEntryRow) {
  return { url: downloadUrl(ctx, entry.agent_id, entry.id), sequence: entry.seq, size_bytes: entry.size_bytes, created_at: entry.created_at };
}

/** GET /agents/{id}/restore[?up_to_sequence=N] — snapshot + ascending deltas as signed URLs. */
export async function restoreHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const upToSequence = sequenceParam(ctx.url, 'up_to_sequence');
  const plan = restorePlan({ ledger: ctx.service.ledger, agentId: ctx.params.id!, upToSequence, tenantId: ctx.tenantId });
  return jsonResponse({
    snapshot: { url: downloadUrl(ctx, plan.agentId, plan.snapshot.id), snapshot_id: plan.snapshot.id, sequence: plan.snapshot.seq },
    deltas: plan.deltas.map((entry) => deltaLink(ctx, entry)),
  });
}

/** GET /agents/{id}/deltas?since=N — every delta with sequence > N (default 0), ascending. */
export async function deltasSinceHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const since = sequenceParam(ctx.url, 'since') ?? 0;
  const agent = requireAgent({ ledger: ctx.service.ledger, agentId: ctx.params.id!, tenantId: ctx.tenantId });
  const entries = listEntries({ ledger: ctx.service.ledger, agentId: agent.id, sinceSeq: since, kind: 'delta' });
  return jsonResponse({ deltas: entries.map((entry) => deltaLink(ctx, entry)) });
}

/** GET /agents/{id}/snapshot — a signed link to the latest snapshot; 404 before the first sync. */
export async function getSnapshotHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const agent = requireAgent({ ledger: ctx.service.ledger, agentId: ctx.params.id!, tenantId: ctx.tenantId });
  const snapshots = listEntries({ ledger: ctx.service.ledger, agentId: agent.id, kind: 'snapshot' });
  const latest = snapshots[snapshots.length - 1];
  if (!latest) throw new ServiceError('not_found', `agent ${agent.id} has no snapshot yet`);
  return jsonResponse({ snapshot_url: downloadUrl(ctx, agent.id, latest.id), snapshot_id: latest.id, sequence: latest.seq });
}

/** GET /v1/blobs/{agent}/{entry}?exp&sig — the exact stored bytes; no Authorization header. */
export async function downloadBlobHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  checkSignature(ctx, 'GET');
  const { ledger } = ctx.service;
  const entry = ledger.db.db.select().from(ledger_entries)
    .where(and(eq(ledger_entries.id, ctx.params.entryId!), eq(ledger_entries.agent_id, ctx.params.agentId!))).get();
  if (!entry) throw new ServiceError('not_found', 'blob not found');
  const bytes = await readEntryBytes({ ledger, entry });
  return bytesResponse(bytes);
}
