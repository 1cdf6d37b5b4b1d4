import { Readable } from 'node:stream';
import { workspaceAlfAt, workspaceArchive, WorkspaceRebuildError } from '@/lib/history/queries';
import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { attachmentDisposition } from '@/lib/server/content-disposition';
import { requestScope, requireSynced, storage as dashboardStorage, type Params } from '../../../../_lib/context';
import { downloadQuery } from '../../../../_lib/schemas';
import { echoInput } from '@/lib/core/echo';

const CONTENT_TYPE = { 'tar.gz': 'application/gzip', zip: 'application/zip', alf: 'application/octet-stream' } as const;

/**
 * The workspace at `seq` (default: latest) as a .tar.gz or .zip — for ZeroClaw and Hermes what
 * `lineage restore --out` writes, database included — or the folded .alf.
 */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { seq: askedSeq, format } = parseQuery(request, downloadQuery);
  const agent = await requireSynced(id, await requestScope(request));
  const seq = askedSeq ?? agent.latest_sequence;
  const storage = await dashboardStorage();
  const headers = {
    'content-type': CONTENT_TYPE[format],
    'content-disposition': attachmentDisposition(agent.name, `-seq${seq}.${format}`),
    'x-content-type-options': 'nosniff',
    'cache-control': askedSeq === undefined ? 'no-store' : 'private, max-age=31536000, immutable',
  };
  if (format === 'alf') {
    const bytes = await workspaceAlfAt({ storage, agentId: agent.id, seq });
    return new Response(Buffer.from(bytes), { headers: { ...headers, 'content-length': String(bytes.byteLength) } });
  }
  let archive;
  try {
    archive = await workspaceArchive({ storage, agentId: agent.id, seq, format });
  } catch (error) {
    // Stored records that cannot be written back: said in words, as `lineage restore` would refuse them.
    if (error instanceof WorkspaceRebuildError) return Response.json({ error: error.message }, { status: 422 });
    throw error;
  }
  const stream = found(archive, `agent ${echoInput(id)}`);
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { headers });
});
