import type { RequestContext } from './context';
import { ServiceError } from './errors';

/** Refuses a signed-URL request whose signature is wrong (403) or expired (403). */
export function checkSignature(ctx: RequestContext, method: string): void {
  const check = ctx.service.signer.verify(method, ctx.url, ctx.service.clock());
  if (check === 'expired') throw new ServiceError('forbidden', 'signed URL has expired');
  if (check !== 'ok') throw new ServiceError('forbidden', 'signed URL signature is invalid');
}

/** An absolute signed download URL for one ledger entry. */
export function downloadUrl(ctx: RequestContext, agentId: string, entryId: string): string {
  const { signer, limits, clock } = ctx.service;
  return `${ctx.url.origin}${signer.sign('GET', `/v1/blobs/${agentId}/${entryId}`, limits.downloadUrlTtlSeconds, clock())}`;
}
