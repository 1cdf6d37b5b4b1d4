import { apiRoute, found, parseQuery } from '@/lib/server/api-errors';
import { requestScope, requireSynced, storage, type Params } from '../../../../_lib/context';
import { workspaceFileQuery } from '../../../../_lib/schemas';
import { echoPath } from '@/lib/core/echo';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** One file's bytes at `seq`: text/plain when UTF-8, else octet-stream; never sniffed or rendered. */
export const GET = apiRoute(async (request: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const query = parseQuery(request, workspaceFileQuery);
  const agent = await requireSynced(id, await requestScope(request));
  const seq = query.seq ?? agent.latest_sequence;
  const bytes = found(await (await storage()).getWorkspaceFile({ agentId: agent.id, seq, path: query.path }), `file ${echoPath(query.path)} at sequence ${seq}`);
  return new Response(Buffer.from(bytes), {
    headers: {
      'content-type': isUtf8(bytes) ? 'text/plain; charset=utf-8' : 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      // A sequence never changes; "latest" does.
      'cache-control': query.seq === undefined ? 'no-store' : 'private, max-age=31536000, immutable',
    },
  });
});
