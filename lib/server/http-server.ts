import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Clock } from '@/lib/core/clock';
import { useProcessStorage } from '@/lib/storage/open';
import type { LineageStorage } from '@/lib/storage/types';
import { echoPath } from '@/lib/core/echo';
import { answerClientError } from './client-errors';
import { createServiceContext, type ServiceContext } from './context';
import { guardDashboardRequest, type DashboardGuardConfig } from './dashboard-guard';
import { handleProtocolRequest } from './dispatch';
import { errorToResponse, jsonResponse } from './errors';
import { allowedHostnames, hostnameOf, isLoopbackAddress } from './hosts';
import type { ServerLimits } from './limits';
import { ensureNextBuild, loadNextHandler, repoRoot, type NodeHandler } from './next-ui';
import { isProtocolRequest, sendProtocolResponse, toProtocolRequest } from './node-bridge';
import { bodyReadWithIdleLimit } from './node-body';
import { toOriginForm, unreadablePath } from './request-checks';
import { requestTimingLog } from './request-timing';
import { createSchemaGuard, type SchemaGuard } from './schema-guard';
import { setBaseSecurityHeaders } from './security-headers';
import { createStaticAssets, type StaticAssets } from './static-assets';
import { DEFAULT_SESSION_TTL_SECONDS, SessionSigner } from './session';
import { SignInRateLimit } from './session-rate-limit';
import { clientAddress, TrustedProxies } from './trusted-proxy';

/** Options of `createLineageServer`. */
export interface LineageServerOptions {
  dataDir: string;
  /** The storage to serve (the composition root opened it); default: the embedded storage of `dataDir`. */
  storage?: LineageStorage;
  /** The signing secret (`LINEAGE_SECRET`); default: the data directory's `server-secret` file. */
  secret?: Buffer | null;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Serve the Next.js dashboard for non-protocol requests (builds it first if needed). */
  ui: boolean;
  limits?: Partial<ServerLimits>;
  clock?: Clock;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
  /** `required`: sign-in even on a loopback bind. Any other bind always requires it. */
  auth?: 'auto' | 'required';
  /** Host names accepted in `Host` besides loopback, the bind address and the public URL's host. */
  allowedHosts?: readonly string[];
  /** Origin of the URLs handed out (`LINEAGE_PUBLIC_URL`); default: the bind address. */
  publicUrl?: string;
  /** Life of a dashboard session (default 7 days). */
  sessionTtlSeconds?: number;
  /** A file to append each request's server time to (`LINEAGE_REQUEST_TIMING_LOG`; see request-timing.ts). */
  requestTimingLog?: string;
  /** Reverse proxies (addresses, CIDR ranges) whose `X-Forwarded-For` names the client (`--trust-proxy`; trusted-proxy.ts). */
  trustProxy?: readonly string[];
}

/** `serve` would expose data to the network with no key to sign in with. */
export class ServeRefused extends Error {
  constructor(message: string, readonly hint: string) {
    super(message);
    this.name = 'ServeRefused';
  }
}

/** A listening `lineage serve`. */
export interface LineageServer {
  url: string;
  port: number;
  service: ServiceContext;
  close(): Promise<void>;
}

/**
 * Starts the HTTP server: ALF protocol requests are handled here (protocol-http.ts shapes, no
 * Fetch objects); everything else goes to Next.js when `ui` is on (404 JSON otherwise).
 */
export async function createLineageServer(options: LineageServerOptions): Promise<LineageServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const bindHost = options.host ?? '127.0.0.1';
  const authRequired = options.auth === 'required' || !isLoopbackAddress(bindHost);
  const service = createServiceContext({ dataDir: options.dataDir, storage: options.storage, secret: options.secret, limits: options.limits, clock: options.clock });
  if (authRequired && (await service.storage.countApiKeys()) === 0) {
    await service.storage.close();
    const why = isLoopbackAddress(bindHost) ? 'sign-in is required (--auth required)' : `binding ${bindHost} exposes every agent's memory to the network`;
    throw new ServeRefused(
      `refusing to serve: ${why} and there is no API key to sign in with`,
      `create an admin key first: \`lineage keys create --admin --data ${service.dataDir}\`, then sign in at /login with it`,
    );
  }
  let nextHandler: NodeHandler | null = null;
  let assets: StaticAssets | null = null;
  if (options.ui) {
    // Next's route handlers and pages run in this process: they must read the data directory this
    // server was given (--data), through the very storage handle the protocol uses.
    process.env.LINEAGE_DATA = service.dataDir;
    useProcessStorage(service.storage);
    const root = repoRoot();
    await ensureNextBuild(root, log);
    nextHandler = await loadNextHandler(root);
    assets = createStaticAssets({ root });
  }
  const allowedHosts = allowedHostnames({ bindHost, publicUrl: options.publicUrl, allowedHosts: options.allowedHosts });
  const httpsPublic = options.publicUrl?.startsWith('https:') ?? false;
  const trustedProxies = new TrustedProxies(options.trustProxy ?? []);
  const guard: DashboardGuardConfig = {
    authRequired, storage: service.storage,
    sessions: new SessionSigner(service.signer.deriveKey('session-cookie')),
    sessionTtlSeconds: options.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS,
    rateLimit: new SignInRateLimit(), allowedHosts,
    clientAddress: (req) => clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustedProxies), clock: service.clock, bodyIdleMs: service.limits.bodyIdleMs,
    publicOrigin: options.publicUrl ? new URL(options.publicUrl).origin : null,
    secure: (req) => httpsPublic || req.headers['x-forwarded-proto'] === 'https',
  };
  const timer = requestTimingLog(options.requestTimingLog);
  const schema = createSchemaGuard(service.storage, { log });
  const replies = new WeakMap<Socket, http.ServerResponse>();
  // Node's whole-request limit is ours (limitWholeRequest); its limit on the request head is kept.
  const server = http.createServer({ requestTimeout: 0 }, (req, res) => {
    timer?.(req, res);
    replies.set(req.socket, res);
    limitWholeRequest(req, res, service.limits.requestTimeoutMs);
    void route(req, res, { service, next: nextHandler, assets, guard, allowedHosts, schema });
  });
  server.on('clientError', answerClientError);
  closeStalledReplies(server, replies, service.limits.socketIdleMs);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, bindHost, () => resolve());
  });
  const maintenance = service.storage.startMaintenance({ log, clock: service.clock });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  service.publicUrl = options.publicUrl ?? `http://${host}:${port}`;
  return {
    url: `http://${host}:${port}`,
    port,
    service,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await maintenance.stop();
      await service.storage.close();
    },
  };
}

/**
 * A connection on which nothing moved for `idleMs` is closed — a client that asked for a download
 * and stopped reading it held the connection, and the reply's bytes in memory, for as long as it
 * liked. A reply still being made (its head not yet sent) is left alone: the wait is the server's,
 * and a request body that stops arriving has its own limit (node-body.ts). Writing the reply's
 * head or any byte of it starts the wait again, so a slow reader that keeps reading is not cut.
 */
function closeStalledReplies(server: http.Server, replies: WeakMap<Socket, http.ServerResponse>, idleMs: number): void {
  server.setTimeout(idleMs);
  server.on('timeout', (socket: Socket) => {
    const reply = replies.get(socket);
    if (reply && !reply.headersSent) return;
    socket.destroy();
  });
}

/**
 * A request not all arrived after `ms` is a 408 and its connection closed, as Node's own
 * `requestTimeout` would — except a body the server reads (node-body.ts), which is cut only when it
 * stops arriving: Node's limit cut a long upload whose bytes were still coming (a 256 MiB snapshot on
 * a slow link passes 300 s). A body nobody reads (a refused request's, one sent to the dashboard)
 * keeps the limit.
 */
function limitWholeRequest(req: http.IncomingMessage, res: http.ServerResponse, ms: number): void {
  const timer = setTimeout(() => {
    if (req.complete || bodyReadWithIdleLimit(req) || req.socket.destroyed) return;
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    res.on('finish', () => req.socket.destroy());
    sendProtocolResponse(req, res, jsonResponse({ error: 'the request did not arrive in time' }, 408));
  }, ms);
  timer.unref();
  // Answered before its body arrived whole, a request keeps the limit: Node drains what is left of it.
  res.on('close', () => {
    if (req.complete) clearTimeout(timer);
  });
}

interface Routing {
  service: ServiceContext;
  next: NodeHandler | null;
  /** The build's assets, served before Next (static-assets.ts); present with `next`. */
  assets: StaticAssets | null;
  guard: DashboardGuardConfig;
  allowedHosts: ReadonlySet<string>;
  /** A database a newer lineage migrated under this server: every request a 503 (schema-guard.ts). */
  schema: SchemaGuard;
}

/** A Host this server does not answer to (DNS rebinding) is a 421 before anything else. */
function misdirected(req: http.IncomingMessage, res: http.ServerResponse, allowedHosts: ReadonlySet<string>): boolean {
  const name = hostnameOf(req.headers.host);
  if (name !== null && allowedHosts.has(name)) return false;
  req.resume();
  const shown = JSON.stringify(echoPath(String(req.headers.host ?? '')));
  res.writeHead(421, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: `misdirected request: Host ${shown} is not served here; allow it with --allowed-hosts or LINEAGE_ALLOWED_HOSTS` }));
  return true;
}

async function route(req: http.IncomingMessage, res: http.ServerResponse, { service, next, assets, guard, allowedHosts, schema }: Routing): Promise<void> {
  try {
    const target = toOriginForm(req);
    if (target) return sendProtocolResponse(req, res, target);
    if (misdirected(req, res, allowedHosts)) return;
    const unreadable = unreadablePath(req.url);
    if (unreadable) return sendProtocolResponse(req, res, unreadable);
    const newer = await schema.refusal(req);
    if (newer) {
      setBaseSecurityHeaders(res);
      return sendProtocolResponse(req, res, newer);
    }
    if (next && !isProtocolRequest(req)) {
      if (await guardDashboardRequest(req, res, guard)) return;
      if (assets && (await assets.serve(req, res))) return;
      return await next(req, res);
    }
    setBaseSecurityHeaders(res);
    const response = await handleProtocolRequest(schema.guardBody(toProtocolRequest(req, service.limits.bodyIdleMs)), service);
    // An unexpected failure may be the database a newer lineage migrated since the last look.
    sendProtocolResponse(req, res, (response.status >= 500 && (await schema.afterFailure(req, response.status))) || response);
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
