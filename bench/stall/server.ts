/**
 * The server side of bench/stall.ts, in its own process: the real protocol service (handlers,
 * group commit, ingest thread, checkpoint thread) plus `/bench/zip?agent=&seq=` streaming the
 * dashboard's workspace `.zip` (`streamWorkspaceArchive`, what the download route serves) on the
 * same event loop. Prints `listening on URL` on stderr.
 */
import { embeddedLedger } from '@/lib/storage/embedded';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { streamWorkspaceArchive } from '@/lib/history/queries';
import { startCheckpointer } from '@/lib/ledger/checkpointer';
import { createServiceContext } from '@/lib/server/context';
import { handleProtocolRequest } from '@/lib/server/dispatch';
import { sendProtocolResponse, toProtocolRequest } from '@/lib/server/node-bridge';

const dataDir = process.argv[2]!;
const service = createServiceContext({ dataDir });
startCheckpointer(embeddedLedger(service.storage).db, { log: () => undefined });
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/bench/zip') {
    const stream = streamWorkspaceArchive({ db: embeddedLedger(service.storage).db, agentId: url.searchParams.get('agent')!, seq: Number(url.searchParams.get('seq')), format: 'zip' });
    if (!stream) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/zip' });
    stream.pipe(res);
    return;
  }
  void handleProtocolRequest(toProtocolRequest(req, service.limits.bodyIdleMs), service).then((reply) => sendProtocolResponse(req, res, reply));
});
server.listen(0, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
