import type { LineageDb } from '@/db/client';
import { tenantForKey } from './api-keys';
import { ServiceError } from './errors';
import type { ProtocolRequest } from './protocol-http';

/** Resolves `Authorization: Bearer <key>` to the key's tenant id, or throws 401. */
export function authenticate(req: ProtocolRequest, db: LineageDb): string {
  const header = req.headers.get('authorization');
  if (!header) throw new ServiceError('unauthorized', 'missing Authorization header; expected "Bearer <api key>"');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ServiceError('unauthorized', 'malformed Authorization header; expected "Bearer <api key>"');
  const tenant = tenantForKey({ db, key: match[1]! });
  if (!tenant) throw new ServiceError('unauthorized', 'invalid API key');
  return tenant;
}
