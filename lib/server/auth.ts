import type { LineageStorage } from '@/lib/storage/types';
import { ServiceError } from './errors';
import type { ProtocolRequest } from './protocol-http';

/** Resolves `Authorization: Bearer <key>` to the key's tenant id, or throws 401. */
export async function authenticate(req: ProtocolRequest, storage: LineageStorage): Promise<string> {
  const header = req.headers.get('authorization');
  if (!header) throw new ServiceError('unauthorized', 'missing Authorization header; expected "Bearer <api key>"');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ServiceError('unauthorized', 'malformed Authorization header; expected "Bearer <api key>"');
  const identity = await storage.identifyKey({ key: match[1]! });
  if (!identity) throw new ServiceError('unauthorized', 'invalid API key');
  return identity.id;
}
