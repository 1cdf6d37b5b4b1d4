/**
 * A workspace asked at a sequence past the agent's latest (`/agents/<id>/workspace?seq=999`) is a
 * 404 page. The page itself cannot say so: it reads the sequence on the client (reading
 * `searchParams` on the server made every move between sequences a server round trip), and it
 * streams, so its status is sent before anything is known. So the server in front of Next.js looks
 * the sequence up for a document load and sends the page's own HTML (WorkspaceNotFound: no files,
 * no downloads) with status 404. Client-side navigation (RSC requests, `RSC: 1`) is left alone.
 * The compare page (`/agents/<id>/compare?from=A&to=B`) reads its sequences the same way, so a
 * sequence past the latest there is a 404 too (the page says which one in words).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TenantScope } from '@/lib/ledger/agents';
import type { LineageStorage } from '@/lib/storage/types';

/** The pages that take sequences in their query, and the parameters that name them. */
const PAGES: [RegExp, string[]][] = [
  [/^\/agents\/([^/]+)\/workspace\/?$/, ['seq']],
  [/^\/agents\/([^/]+)\/compare\/?$/, ['from', 'to']],
];

/** Whether `url` is a workspace or compare page at a sequence the agent (inside `scope`) does not have. */
export async function isPagePastLatest(url: URL, storage: LineageStorage, scope: TenantScope): Promise<boolean> {
  let match: RegExpExecArray | null = null;
  let names: string[] = [];
  for (const [pattern, params] of PAGES) {
    match = pattern.exec(url.pathname);
    if (match) {
      names = params;
      break;
    }
  }
  const seqs = names.map((name) => url.searchParams.get(name)).filter((v): v is string => v !== null && /^\d+$/.test(v));
  if (!match || seqs.length === 0) return false;
  let agentId: string;
  try {
    agentId = decodeURIComponent(match[1]!);
  } catch {
    return false;
  }
  const agent = await storage.getAgent({ agentId, tenantId: scope });
  return agent !== null && seqs.some((seq) => agent.latest_sequence === null || Number(seq) > agent.latest_sequence!);
}

/** For a document load (not a client navigation) of such a page: the response goes out as a 404. */
export async function markPastLatest(req: IncomingMessage, res: ServerResponse, url: URL, storage: LineageStorage, scope: TenantScope): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return;
  if (req.headers.rsc !== undefined) return;
  if (!(await isPagePastLatest(url, storage, scope))) return;
  const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
  // Node sends an implicit head through this.writeHead(this.statusCode) too, so every path passes here.
  res.writeHead = ((status: number, ...rest: unknown[]) => writeHead(status === 200 ? 404 : status, ...rest)) as typeof res.writeHead;
}
