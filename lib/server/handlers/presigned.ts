import { requireStorageAgent } from '../require-agent';
import { LedgerError } from '@/lib/ledger/errors';
import type { IngestResult } from '@/lib/ledger/ingest';
import { readArchiveUpload } from '../body';
import type { RequestContext } from '../context';
import { errorToResponse, jsonResponse, ServiceError } from '../errors';
import { emptyResponse } from '../protocol-http';
import { sequenceParam } from '../params';
import { checkSignature } from '../signed-url';
import type { PendingUpload } from '../upload-store';
import { deltaReply, ingestUpload, snapshotReply } from './uploads';
import { ingestedAlready } from './ingested-already';
import type { ProtocolRequest, ProtocolResponse } from '../protocol-http';
import { echoInput } from '@/lib/core/echo';

/** `agentId`: the agent's row id, as confirm and agent deletion compare it (the path may name it otherwise: upper case, padded). */
async function initiate(ctx: RequestContext, agentId: string, kind: PendingUpload['kind'], baseSequence: number | null): Promise<PendingUpload> {
  const { storage, limits, clock } = ctx.service;
  const now = clock();
  return storage.uploads.create({
    agentId, tenantId: ctx.tenantId ?? '', kind, baseSequence,
    expiresAt: new Date(now.getTime() + limits.uploadUrlTtlSeconds * 1000).toISOString(),
  });
}

/**
 * Where the client PUTs the bytes: the storage's own URL when it has one (scale-out: an S3 presigned
 * PUT into the staging prefix, so the bytes never pass through a server process), else this server's
 * signed `/v1/uploads/{id}`.
 */
async function uploadUrl(ctx: RequestContext, upload: PendingUpload): Promise<string> {
  const { storage, signer, limits, clock } = ctx.service;
  const direct = await storage.uploads.uploadUrl(upload.id, limits.uploadUrlTtlSeconds);
  return direct ?? `${ctx.url.origin}${signer.sign('PUT', `/v1/uploads/${upload.id}`, limits.uploadUrlTtlSeconds, clock())}`;
}

/** POST /agents/{id}/snapshot/upload — 200 `{upload_url, snapshot_id}`. */
export async function initiateSnapshotUploadHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const agent = await requireStorageAgent(ctx);
  const upload = await initiate(ctx, agent.id, 'snapshot', null);
  return jsonResponse({ upload_url: await uploadUrl(ctx, upload), snapshot_id: upload.id });
}

/** POST /agents/{id}/deltas/upload?base_sequence=N — 200 `{upload_url, delta_id}`, or 409 on a stale base. */
export async function initiateDeltaUploadHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  const baseSequence = sequenceParam(ctx.url, 'base_sequence', true);
  const agent = await requireStorageAgent(ctx);
  // Early answer only: the authoritative compare-and-set runs again at confirm, inside the ledger.
  if (agent.latest_sequence === null) {
    throw new LedgerError('no_snapshot', `agent ${agent.id} has no snapshot yet: upload a full snapshot first`);
  }
  if (agent.latest_sequence !== baseSequence) {
    throw new LedgerError('stale_sequence',
      `base sequence ${baseSequence} is not the agent's latest sequence ${agent.latest_sequence}`, { latest: agent.latest_sequence });
  }
  const upload = await initiate(ctx, agent.id, 'delta', baseSequence);
  return jsonResponse({ upload_url: await uploadUrl(ctx, upload), delta_id: upload.id });
}

/** PUT /v1/uploads/{upload_id}?exp&sig — the signed upload URL; no Authorization header. */
export async function putUploadHandler(req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  await checkSignature(ctx, 'PUT');
  const { uploads } = ctx.service.storage;
  const upload = await uploads.get(ctx.params.uploadId!);
  if (!upload) throw new ServiceError('not_found', 'upload not found (it may have been confirmed or expired)');
  if (upload.confirmed) throw new ServiceError('conflict', `upload ${upload.id} is confirmed already: start a new upload`);
  const bytes = await readArchiveUpload(req, ctx.service.limits.maxUploadBytes);
  await uploads.putBytes(upload.id, bytes);
  return emptyResponse(200);
}

/** The caller's pending upload of this kind for this agent, or a 404 (also for another tenant's). */
async function pendingFor(ctx: RequestContext, kind: PendingUpload['kind']): Promise<PendingUpload> {
  const agent = await requireStorageAgent(ctx);
  const upload = await ctx.service.storage.uploads.get(ctx.params.uploadId!);
  if (!upload || upload.agentId !== agent.id || upload.kind !== kind || upload.tenantId !== (ctx.tenantId ?? '')) {
    throw new ServiceError('not_found', `no pending ${kind} upload ${echoInput(ctx.params.uploadId!)} for agent ${agent.id}`);
  }
  return upload;
}

/** Confirms running now, per upload store and upload id: a concurrent confirm joins the running one. */
const running = new WeakMap<object, Map<string, Promise<ProtocolResponse>>>();

/**
 * Confirms an upload once (issue 18 §6): concurrent confirms share one ingest, and a confirm of an
 * upload confirmed already answers with the reply it got, so one upload makes one ledger entry and
 * every confirm answers with its sequence. The bytes are dropped once ingested, or once refused for
 * the client's fault (4xx); a failure of ours (5xx) keeps them for a retry.
 */
async function confirmOnce(ctx: RequestContext, kind: PendingUpload['kind'], ingest: (upload: PendingUpload, bytes: Uint8Array) => Promise<IngestResult>): Promise<ProtocolResponse> {
  const { uploads } = ctx.service.storage;
  const upload = await pendingFor(ctx, kind);
  if (upload.confirmed) return jsonResponse(upload.confirmed.body, upload.confirmed.status);
  let inStore = running.get(uploads);
  if (!inStore) running.set(uploads, (inStore = new Map()));
  const current = inStore.get(upload.id);
  if (current) return current;
  const dropOnClientError = async (err: unknown): Promise<never> => {
    // The client's error is the answer even when the bucket would not drop the bytes now (the sweep will).
    if (errorToResponse(err).status < 500) await uploads.remove(upload.id).catch(() => undefined);
    throw err;
  };
  // Another process may run the same confirm (a retry the load balancer sent elsewhere): one at a
  // time, and the upload read again once this one may go, so the second answers with the first's reply.
  const attempt = uploads.exclusive(upload.id, async () => {
    const latest = await uploads.get(upload.id);
    if (!latest) throw new ServiceError('not_found', `no pending ${kind} upload ${echoInput(upload.id)} for agent ${upload.agentId}`);
    if (latest.confirmed) return jsonResponse(latest.confirmed.body, latest.confirmed.status);
    // The size is checked before the bytes are read (scale-out: from the ranged GET of the staged
    // object, which the client PUT straight to S3, so no server saw its size): too large is the
    // client's fault, dropped.
    const bytes = await uploads.readBytes(upload.id, { maxBytes: ctx.service.limits.maxUploadBytes }).catch(dropOnClientError);
    if (!bytes) throw new ServiceError('bad_request', `upload ${upload.id} has no bytes yet: PUT them to its upload_url first`);
    try {
      const stored = (await ingestedAlready(ctx.service.storage, latest, bytes)) ?? (await ingest(upload, bytes));
      const reply = (kind === 'snapshot' ? snapshotReply : deltaReply)(stored);
      await uploads.markConfirmed(upload, { status: reply.status, body: JSON.parse(Buffer.from(reply.body!).toString('utf8')) as Record<string, unknown> });
      return reply;
    } catch (err) {
      return dropOnClientError(err);
    }
  }).finally(() => inStore.delete(upload.id));
  inStore.set(upload.id, attempt);
  return attempt;
}

/** POST /agents/{id}/snapshot/upload/{snapshot_id}/confirm — 201 like a direct PUT. */
export async function confirmSnapshotUploadHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  return confirmOnce(ctx, 'snapshot', (upload, bytes) => ingestUpload(ctx, { kind: 'snapshot', agentId: upload.agentId, bytes }));
}

/** POST /agents/{id}/deltas/upload/{delta_id}/confirm — 201, or 409 + `X-Latest-Sequence`. */
export async function confirmDeltaUploadHandler(_req: ProtocolRequest, ctx: RequestContext): Promise<ProtocolResponse> {
  return confirmOnce(ctx, 'delta', (upload, bytes) => ingestUpload(ctx, {
    kind: 'delta', agentId: upload.agentId, bytes, baseSequence: upload.baseSequence ?? 0,
  }));
}
