import type { LedgerEntryRow } from '@/db/schema';
import type { RequestContext } from './context';
import { ServiceError } from './errors';

/** Refuses a signed-URL request whose signature is wrong (403) or expired (403). */
export async function checkSignature(ctx: RequestContext, method: string): Promise<void> {
  const check = ctx.service.signer.verify(method, ctx.url, ctx.service.clock());
  if (check === 'expired') throw new ServiceError('forbidden', 'signed URL has expired');
  if (check !== 'ok') throw new ServiceError('forbidden', 'signed URL signature is invalid');
  // A URL lives only as long as the key it was issued to.
  const kid = ctx.url.searchParams.get('kid');
  if (kid === null) throw new ServiceError('forbidden', 'signed URL names no API key; request a new one');
  if (!(await ctx.service.storage.keyIdentityById(kid))) throw new ServiceError('forbidden', 'signed URL was issued to an API key that has been revoked');
}

/**
 * An absolute download URL for one ledger entry: the storage's own (scale-out with
 * `LINEAGE_S3_DOWNLOADS=presigned`: an S3 presigned GET of the blob), else this server's signed
 * `/v1/blobs/{agent}/{entry}` (proxied).
 */
export async function downloadUrl(ctx: RequestContext, entry: Pick<LedgerEntryRow, 'agent_id' | 'id' | 'blob_key'>): Promise<string> {
  const { storage, signer, limits, clock } = ctx.service;
  const direct = await storage.blobDownloadUrl({ key: entry.blob_key, expiresInSeconds: limits.downloadUrlTtlSeconds });
  return direct ?? `${ctx.url.origin}${signer.sign('GET', `/v1/blobs/${entry.agent_id}/${entry.id}`, limits.downloadUrlTtlSeconds, clock())}`;
}
