import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '@/lib/core/clock';
import { closeDatabase } from '@/db/client';
import { startCheckpointer } from '@/lib/ledger/checkpointer';
import { sweepOrphanBlobs } from '@/lib/ledger/orphans';
import { createServiceContext, type ServiceContext } from './context';
import { handleProtocolRequest } from './dispatch';
import { errorToResponse } from './errors';
import type { ServerLimits } from './limits';
import { ensureNextBuild, loadNextHandler, repoRoot, type NodeHandler } from './next-ui';
import { isProtocolRequest, sendProtocolResponse, toProtocolRequest } from './node-bridge';
import { unreadablePath } from './request-checks';

/** Options of `createLineageServer`. */
export interface LineageServerOptions {
  dataDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Serve the Next.js dashboard for non-protocol requests (builds it first if needed). */
  ui: boolean;
  limits?: Partial<ServerLimits>;
  clock?: Clock;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** A listening `lineage serve`. */
export interface LineageServer {
  url: string;
  port: number;
  service: ServiceContext;
  close(): Promise<void>;
}

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Starts the HTTP server: ALF protocol requests are handled here (protocol-http.ts shapes, no
 * Fetch objects); everything else goes to Next.js when `ui` is on (404 JSON otherwise).
 */
export async function createLineageServer(options: LineageServerOptions): Promise<LineageServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const service = createServiceContext({ dataDir: options.dataDir, limits: options.limits, clock: options.clock });
  let nextHandler: NodeHandler | null = null;
  if (options.ui) {
    // Next's route handlers and pages run in this process: they must read the data directory this
    // server was given (--data), through the very ledger handle the protocol uses.
    process.env.LINEAGE_DATA = service.ledger.db.dataDir;
    (globalThis as { lineageLedger?: typeof service.ledger }).lineageLedger = service.ledger;
    const root = repoRoot();
    await ensureNextBuild(root, log);
    nextHandler = await loadNextHandler(root);
  }
  const server = http.createServer((req, res) => {
    void route(req, res, service, nextHandler);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => resolve());
  });
  // Checkpoints run in a worker thread, not inside an upload's commit on this event loop.
  const checkpointer = startCheckpointer(service.ledger.db, { log });
  const sweep = () => {
    void service.uploads.sweep(service.clock()).catch((err) => log(`upload sweep failed: ${String(err)}`));
    void sweepOrphanBlobs({ ledger: service.ledger, now: service.clock() }).catch((err) => log(`blob sweep failed: ${String(err)}`));
  };
  sweep();
  const timer = setInterval(sweep, SWEEP_INTERVAL_MS);
  timer.unref();
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    service,
    close: async () => {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await checkpointer.stop();
      closeDatabase(service.ledger.db);
    },
  };
}

async function route(req: http.IncomingMessage, res: http.ServerResponse, service: ServiceContext, next: NodeHandler | null): Promise<void> {
  try {
    const unreadable = unreadablePath(req.url);
    if (unreadable) return sendProtocolResponse(req, res, unreadable);
    if (next && !isProtocolRequest(req)) return await next(req, res);
    sendProtocolResponse(req, res, await handleProtocolRequest(toProtocolRequest(req), service));
  } catch (err) {
    if (res.headersSent) {
      console.error('[lineage serve] failed while sending a response:', err);
      res.destroy();
      return;
    }
    try {
      sendProtocolResponse(req, res, errorToResponse(err));
    } catch {
      res.destroy();
    }
  }
}
