import type { RequestContext } from './context';
import { deleteAgentHandler, getAgentHandler, listAgentsHandler, registerAgentHandler } from './handlers/agents';
import { deltasSinceHandler, downloadBlobHandler, getSnapshotHandler, restoreHandler } from './handlers/downloads';
import { memoryHandler } from './handlers/memory';
import {
  confirmDeltaUploadHandler, confirmSnapshotUploadHandler, initiateDeltaUploadHandler,
  initiateSnapshotUploadHandler, putUploadHandler,
} from './handlers/presigned';
import { pushDeltaHandler, putSnapshotHandler } from './handlers/uploads';
import { withPrefixes, type Route } from './router';

type R = Route<RequestContext>;

/** CONTRACT §1.2, relative to the base URL (served with and without `/v1`). */
const AGENT_ROUTES: R[] = [
  { method: 'GET', pattern: '/agents', auth: true, handler: listAgentsHandler },
  { method: 'POST', pattern: '/agents', auth: true, handler: registerAgentHandler },
  { method: 'GET', pattern: '/agents/:id', auth: true, handler: getAgentHandler },
  { method: 'DELETE', pattern: '/agents/:id', auth: true, handler: deleteAgentHandler },
  { method: 'PUT', pattern: '/agents/:id/snapshot', auth: true, handler: putSnapshotHandler },
  { method: 'GET', pattern: '/agents/:id/snapshot', auth: true, handler: getSnapshotHandler },
  { method: 'POST', pattern: '/agents/:id/snapshot/upload', auth: true, handler: initiateSnapshotUploadHandler },
  { method: 'POST', pattern: '/agents/:id/snapshot/upload/:uploadId/confirm', auth: true, handler: confirmSnapshotUploadHandler },
  { method: 'POST', pattern: '/agents/:id/deltas', auth: true, handler: pushDeltaHandler },
  { method: 'GET', pattern: '/agents/:id/deltas', auth: true, handler: deltasSinceHandler },
  { method: 'POST', pattern: '/agents/:id/deltas/upload', auth: true, handler: initiateDeltaUploadHandler },
  { method: 'POST', pattern: '/agents/:id/deltas/upload/:uploadId/confirm', auth: true, handler: confirmDeltaUploadHandler },
  { method: 'GET', pattern: '/agents/:id/restore', auth: true, handler: restoreHandler },
  { method: 'GET', pattern: '/agents/:id/memory', auth: true, handler: memoryHandler },
];

/** Signed URLs this server hands out; they carry no Authorization header. */
const SIGNED_ROUTES: R[] = [
  { method: 'PUT', pattern: '/v1/uploads/:uploadId', auth: false, handler: putUploadHandler },
  { method: 'GET', pattern: '/v1/blobs/:agentId/:entryId', auth: false, handler: downloadBlobHandler },
];

/** Every protocol route of `lineage serve`. */
export const PROTOCOL_ROUTES: readonly R[] = [...withPrefixes(AGENT_ROUTES, ['', '/v1']), ...SIGNED_ROUTES];
