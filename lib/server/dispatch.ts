import { authenticate } from './auth';
import type { ServiceContext } from './context';
import { errorToResponse, jsonResponse, ServiceError } from './errors';
import { matchRoute } from './router';
import { PROTOCOL_ROUTES } from './routes';
import type { ProtocolRequest, ProtocolResponse } from './protocol-http';
import { echoPath } from '@/lib/core/echo';

/** Routes one protocol request: match → authenticate → handler; every error becomes a JSON response here. */
export async function handleProtocolRequest(req: ProtocolRequest, service: ServiceContext): Promise<ProtocolResponse> {
  try {
    const requested = new URL(req.url);
    // Handlers build absolute URLs from ctx.url's origin: the public URL, never the Host header.
    const url = new URL(requested.pathname + requested.search, new URL(service.publicUrl).origin);
    const match = matchRoute(PROTOCOL_ROUTES, req.method, url.pathname);
    if (match.kind === 'not_found') throw new ServiceError('not_found', `no such endpoint: ${req.method} ${echoPath(url.pathname)}`);
    if (match.kind === 'method_not_allowed') {
      return jsonResponse({ error: `method ${req.method} not allowed on ${echoPath(url.pathname)}` }, 405, { allow: match.allowed.join(', ') });
    }
    const tenantId = match.route.auth ? await authenticate(req, service.storage) : null;
    // URLs signed while serving a key carry it, and stop working once it is revoked.
    const scoped = tenantId === null ? service : { ...service, signer: service.signer.forKey(tenantId) };
    return await match.route.handler(req, { service: scoped, url, params: match.params, tenantId });
  } catch (err) {
    return errorToResponse(err);
  }
}
