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

/** An absolute signed download URL for one ledger entry (origin: the server's public URL, never the request's Host). */
export function downloadUrl(ctx: RequestContext, agentId: string, entryId: string): string {
  const { signer, limits, clock } = ctx.service;
  return `${ctx.url.origin}${signer.sign('GET', `/v1/blobs/${agentId}/${entryId}`, limits.downloadUrlTtlSeconds, clock())}`;
}
